import type { ThrottlerStorage } from '@nestjs/throttler';
// Not re-exported by the package index.
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';

/**
 * What a store answers for one request under an exact sliding window: the request either takes
 * a slot (it is logged) or is refused (nothing is logged, so refused requests never count).
 */
export interface SlidingWindowRecord extends ThrottlerStorageRecord {
  /** Requests logged in the window after this decision (this one included when accepted). */
  totalHits: number;
  /** Whole seconds until the window has room for one more request; 0 when it has room now. */
  timeToExpire: number;
  /** True when the request was refused. */
  isBlocked: boolean;
  /** Refused: whole seconds (≥ 1) until a request would be accepted. Accepted: 0. */
  timeToBlockExpire: number;
  /** Milliseconds until the window has room again; 0 when it has room now. */
  msUntilRoom: number;
}

/**
 * @nestjs/throttler's storage interface, answering SlidingWindowRecord. `ttl` is the window in
 * milliseconds (as in throttler v6); `blockDuration` is ignored: a sliding window has no blocks,
 * a slot frees exactly when the oldest logged request leaves the window.
 */
export interface RateLimitStore extends ThrottlerStorage {
  increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<SlidingWindowRecord>;
}

export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');

export function toRecord(accepted: boolean, totalHits: number, msUntilRoom: number): SlidingWindowRecord {
  const seconds = Math.ceil(Math.max(0, msUntilRoom) / 1000);
  return {
    totalHits,
    timeToExpire: seconds,
    isBlocked: !accepted,
    // A refused request always waits at least one second (the contract's Retry-After ≥ 1).
    timeToBlockExpire: accepted ? 0 : Math.max(1, seconds),
    msUntilRoom: Math.max(0, msUntilRoom),
  };
}
