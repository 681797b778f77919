import { performance } from 'node:perf_hooks';
import { toRecord, type RateLimitStore, type SlidingWindowRecord } from './sliding-window';

interface Log {
  windowMs: number;
  /** Times (ms, ascending) of the accepted requests still in the window; never more than the limit. */
  times: number[];
}

/** A monotonic millisecond clock: wall-clock steps (NTP) must not shrink or stretch a window. */
export const monotonicMs = (): number => Math.floor(performance.now());

/**
 * In-process exact sliding window (a sliding log). A request at time `now` is accepted when fewer
 * than `limit` accepted requests have times t ≥ now − window; only accepted requests are logged.
 * Memory stays bounded: a key keeps at most `limit` times, old times are pruned on every access,
 * and `sweep()` (run periodically) drops keys whose every time has left the window.
 */
export class MemorySlidingWindowStore implements RateLimitStore {
  private readonly logs = new Map<string, Log>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly now: () => number = monotonicMs) {}

  increment(key: string, ttl: number, limit: number): Promise<SlidingWindowRecord> {
    return Promise.resolve(this.take(key, ttl, limit));
  }

  /** Decides one request: takes a slot if the window has one. */
  take(key: string, windowMs: number, limit: number): SlidingWindowRecord {
    const now = this.now();
    const log = this.pruned(key, now, windowMs);
    const accepted = log.times.length < limit;
    if (accepted) {
      log.times.push(now);
      this.logs.set(key, log);
    }
    return toRecord(accepted, log.times.length, this.msUntilRoom(log, now, limit));
  }

  /**
   * Logs a request another store (Redis) accepted, so that when that store fails this process
   * still knows its own recent requests instead of starting from an empty window.
   */
  record(key: string, windowMs: number, limit: number): void {
    const now = this.now();
    const log = this.pruned(key, now, windowMs);
    log.times.push(now);
    if (log.times.length > limit) log.times.splice(0, log.times.length - limit);
    this.logs.set(key, log);
  }

  /** Drops times that left their window and keys left empty. */
  sweep(): void {
    const now = this.now();
    for (const [key, log] of this.logs) {
      prune(log, now);
      if (log.times.length === 0) this.logs.delete(key);
    }
  }

  /** Number of keys held (for tests of the memory bound). */
  get size(): number {
    return this.logs.size;
  }

  startSweeping(everyMs: number): void {
    this.stopSweeping();
    this.timer = setInterval(() => this.sweep(), everyMs);
    this.timer.unref(); // never keeps the process alive
  }

  stopSweeping(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private pruned(key: string, now: number, windowMs: number): Log {
    const log = this.logs.get(key) ?? { windowMs, times: [] };
    log.windowMs = windowMs;
    prune(log, now);
    if (log.times.length === 0) this.logs.delete(key);
    return log;
  }

  /** The (len − limit + 1)-th oldest time must leave for the window to have room; it leaves at t + window + 1. */
  private msUntilRoom(log: Log, now: number, limit: number): number {
    if (log.times.length < limit) return 0;
    const blocking = log.times[log.times.length - limit];
    return blocking + log.windowMs + 1 - now;
  }
}

/** Keeps the times t with t ≥ now − window (a time exactly one window old still counts). */
function prune(log: Log, now: number): void {
  const oldestKept = now - log.windowMs;
  let drop = 0;
  while (drop < log.times.length && log.times[drop] < oldestKept) drop++;
  if (drop > 0) log.times.splice(0, drop);
}
