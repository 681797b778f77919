import { FailoverRateLimitStore } from './failover.store';
import { MemorySlidingWindowStore } from './memory-sliding-window.store';
import { toRecord, type RateLimitStore, type SlidingWindowRecord } from './sliding-window';

/** A shared store whose behaviour the test switches: answering, failing, or hanging. */
class FakeShared implements RateLimitStore {
  mode: 'ok' | 'fail' | 'hang' = 'ok';
  calls = 0;
  increment(): Promise<SlidingWindowRecord> {
    this.calls++;
    if (this.mode === 'fail') return Promise.reject(new Error('connection refused'));
    if (this.mode === 'hang') return new Promise(() => undefined);
    return Promise.resolve(toRecord(true, 1, 0));
  }
}

describe('FailoverRateLimitStore', () => {
  let clock: number;
  let shared: FakeShared;
  let local: MemorySlidingWindowStore;
  let logger: { log: jest.Mock; warn: jest.Mock; error: jest.Mock };
  let store: FailoverRateLimitStore;
  beforeEach(() => {
    clock = 0;
    shared = new FakeShared();
    local = new MemorySlidingWindowStore(() => clock);
    logger = { log: jest.fn(), warn: jest.fn(), error: jest.fn() };
    store = new FailoverRateLimitStore(shared, local, logger, {
      timeoutMs: 50,
      retryEveryMs: 1000,
      now: () => clock,
    });
  });
  const take = () => store.increment('org:1', 60_000, 3, 0, 'org');

  it('uses the shared store while it answers', async () => {
    await take();
    expect(shared.calls).toBe(1);
    expect(store.usingFallback).toBe(false);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('falls back to the in-process store on failure, logs once per episode and once on recovery', async () => {
    await take(); // accepted by the shared store, mirrored locally
    shared.mode = 'fail';
    const first = await take();
    expect(first.isBlocked).toBe(false);
    expect(store.usingFallback).toBe(true);
    clock += 1000;
    await take(); // retries the shared store, fails again: no second log
    // The mirrored request counts: with a limit of 3 only one more fits locally.
    expect((await take()).isBlocked).toBe(true);
    expect(logger.warn).toHaveBeenCalledTimes(1);

    shared.mode = 'ok';
    clock += 1000;
    await take();
    expect(store.usingFallback).toBe(false);
    expect(logger.log).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it('answers from the in-process store when the shared store is too slow', async () => {
    shared.mode = 'hang';
    const started = Date.now();
    const record = await take();
    expect(record.isBlocked).toBe(false);
    expect(Date.now() - started).toBeLessThan(500);
    expect(store.usingFallback).toBe(true);
  });

  it('does not wait on a failing store for every request: it retries at most once per interval', async () => {
    shared.mode = 'hang';
    await take();
    const calls = shared.calls;
    for (let i = 0; i < 5; i++) await take();
    expect(shared.calls).toBe(calls);
    clock += 1000;
    shared.mode = 'ok';
    await take();
    expect(shared.calls).toBe(calls + 1);
    expect(store.usingFallback).toBe(false);
  });
});
