import { MemorySlidingWindowStore } from './memory-sliding-window.store';

/** The in-process sliding log, on an injected millisecond clock. */
describe('MemorySlidingWindowStore', () => {
  let now: number;
  let store: MemorySlidingWindowStore;
  const WINDOW = 60_000;
  beforeEach(() => {
    now = 1_000_000;
    store = new MemorySlidingWindowStore(() => now);
  });

  it('accepts `limit` requests and refuses the next, counting the current request', () => {
    expect(store.take('k', WINDOW, 3)).toMatchObject({ isBlocked: false, totalHits: 1, timeToExpire: 0 });
    expect(store.take('k', WINDOW, 3)).toMatchObject({ isBlocked: false, totalHits: 2, timeToExpire: 0 });
    // The last slot taken: no room until the first request leaves, one window (+1 ms) later.
    expect(store.take('k', WINDOW, 3)).toMatchObject({ isBlocked: false, totalHits: 3, msUntilRoom: WINDOW + 1, timeToExpire: 61 });
    expect(store.take('k', WINDOW, 3)).toMatchObject({ isBlocked: true, totalHits: 3, timeToBlockExpire: 61 });
  });

  it('is a sliding window, not fixed buckets: a slot frees exactly when its request is one window old', () => {
    store.take('k', WINDOW, 2); // t = 0
    now += 30_000;
    store.take('k', WINDOW, 2); // t = 30 s
    now += 30_000; // t = 60 s: the first request is exactly one window old and still counts
    expect(store.take('k', WINDOW, 2)).toMatchObject({ isBlocked: true, msUntilRoom: 1, timeToBlockExpire: 1 });
    now += 1; // it has left
    expect(store.take('k', WINDOW, 2)).toMatchObject({ isBlocked: false, totalHits: 2 });
    // Now the 30 s request blocks: it leaves at 30 s + window + 1 ms.
    expect(store.take('k', WINDOW, 2)).toMatchObject({ isBlocked: true, msUntilRoom: 30_000, timeToBlockExpire: 30 });
  });

  it('never accepts more than `limit` in any window, whatever the arrival pattern', () => {
    const accepted: number[] = [];
    let seed = 7;
    for (let i = 0; i < 5000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      now += seed % 400; // bursts and gaps
      if (!store.take('k', 10_000, 25).isBlocked) accepted.push(now);
    }
    for (let i = 0; i + 25 < accepted.length; i++) {
      // The 26th accepted request after any accepted one is more than a window later.
      expect(accepted[i + 25] - accepted[i]).toBeGreaterThan(10_000);
    }
    expect(accepted.length).toBeGreaterThan(100); // and the window does refill
  });

  it('does not count refused requests', () => {
    store.take('k', WINDOW, 1);
    for (let i = 0; i < 10; i++) expect(store.take('k', WINDOW, 1).isBlocked).toBe(true);
    now += WINDOW + 1;
    expect(store.take('k', WINDOW, 1)).toMatchObject({ isBlocked: false, totalHits: 1 });
  });

  it('keeps keys apart', () => {
    store.take('a', WINDOW, 1);
    expect(store.take('a', WINDOW, 1).isBlocked).toBe(true);
    expect(store.take('b', WINDOW, 1).isBlocked).toBe(false);
  });

  it('stays bounded: old entries are pruned and empty keys dropped by the sweep', () => {
    for (let i = 0; i < 100; i++) store.take(`ip-${i}`, 1000, 5);
    expect(store.size).toBe(100);
    now += 500;
    store.sweep();
    expect(store.size).toBe(100); // still in the window
    now += 501;
    store.sweep();
    expect(store.size).toBe(0);
    // An entry that left the window on access does not linger either.
    store.take('x', 1000, 5);
    now += 2000;
    expect(store.take('x', 1000, 5).totalHits).toBe(1);
  });

  it('record() logs an accepted request from elsewhere, keeping at most `limit` times', () => {
    for (let i = 0; i < 10; i++) store.record('k', WINDOW, 3);
    expect(store.take('k', WINDOW, 3)).toMatchObject({ isBlocked: true, totalHits: 3 });
  });
});
