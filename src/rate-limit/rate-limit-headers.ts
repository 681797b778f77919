import type { Request, Response } from 'express';
import type { SlidingWindowRecord } from './sliding-window';

/**
 * The organization's budget on every authenticated response (contract sections 3, 11 and 12):
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

/**
 * A refused request may still have a body on the wire. `Connection: close` makes Node close the
 * socket after the answer instead of reading (draining) that body to keep the connection alive.
 */
export function closeIfBodyPending(req: Request, res: Response): void {
  const length = Number(req.headers['content-length'] ?? 0);
  if (length > 0 || req.headers['transfer-encoding'] !== undefined) res.setHeader('Connection', 'close');
}

export const rateLimitMessage = (retryAfterSeconds: number) =>
  `Too many requests; retry in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`;
