import type { Response } from 'express';
import type { SlidingWindowRecord } from './sliding-window';

/**
 * The organization's budget on every authenticated response (docs/api.md#rate-limits):
 * X-RateLimit-* and the IETF draft's structured fields. Remaining counts the current request.
 */
export function setOrgRateLimitHeaders(res: Response, record: SlidingWindowRecord, limit: number, windowSeconds: number): void {
  const remaining = Math.max(0, limit - record.totalHits);
  res.setHeader('X-RateLimit-Limit', String(limit));
  res.setHeader('X-RateLimit-Remaining', String(remaining));
  res.setHeader('X-RateLimit-Reset', String(record.timeToExpire));
  res.setHeader('RateLimit-Policy', `"org";q=${limit};w=${windowSeconds}`);
  res.setHeader('RateLimit', `"org";r=${remaining};t=${record.timeToExpire}`);
}

export const rateLimitMessage = (retryAfterSeconds: number) =>
  `Too many requests; retry in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`;
