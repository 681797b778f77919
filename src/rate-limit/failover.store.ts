import type { LoggerService } from '@nestjs/common';
import type { MemorySlidingWindowStore } from './memory-sliding-window.store';
import type { RateLimitStore, SlidingWindowRecord } from './sliding-window';

export interface FailoverOptions {
  /** Longest wait for one Redis decision (REDIS_TIMEOUT_MS). */
  timeoutMs: number;
  /** While Redis is failing, how often one request tries it again (the others go straight to memory). */
  retryEveryMs?: number;
  now?: () => number;
}

/**
 * Decides with the shared store (Redis) and, when it fails or answers too slowly, with the
 * in-process store, so a Redis fault never turns into a 500 or a lost request. The fault is logged
 * once when an episode starts and once when Redis answers again; then decisions go back to Redis.
 *
 * A decision that timed out may still be applied by Redis later: the request then counts in both
 * stores, which can only make the limit stricter, never looser.
 */
export class FailoverRateLimitStore implements RateLimitStore {
  private failingSince: number | undefined;
  private lastAttempt = 0;

  constructor(
    private readonly shared: RateLimitStore,
    private readonly local: MemorySlidingWindowStore,
    private readonly logger: LoggerService,
    private readonly options: FailoverOptions,
  ) {}

  get usingFallback(): boolean {
    return this.failingSince !== undefined;
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, name: string): Promise<SlidingWindowRecord> {
    const now = (this.options.now ?? Date.now)();
    if (this.failingSince !== undefined && now - this.lastAttempt < (this.options.retryEveryMs ?? 1000)) {
      return this.local.take(key, ttl, limit);
    }
    this.lastAttempt = now;
    try {
      const record = await withTimeout(this.shared.increment(key, ttl, limit, blockDuration, name), this.options.timeoutMs);
      if (this.failingSince !== undefined) {
        this.logger.log(`Redis rate-limit store answers again after ${now - this.failingSince} ms; counting in Redis`, 'RateLimit');
        this.failingSince = undefined;
      }
      if (!record.isBlocked) this.local.record(key, ttl, limit);
      return record;
    } catch (error) {
      if (this.failingSince === undefined) {
        this.failingSince = now;
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn(`Redis rate-limit store failed (${reason}); counting in process until it recovers`, 'RateLimit');
      }
      return this.local.take(key, ttl, limit);
    }
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => undefined); // a late failure after the timeout must not be unhandled
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
