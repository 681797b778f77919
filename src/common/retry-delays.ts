/**
 * When the next attempt comes (contract 16, "Webhook retries"): `delays[k-1]` seconds after the
 * k-th failed attempt, jittered by up to +20%; after the last delay is used, the event is failed
 * for the webhook. A 429 or 503 with `Retry-After` waits what it asks instead (at least 1 s, at
 * most the scheduled delay's ceiling of 24 hours).
 */
export const DEFAULT_RETRY_DELAYS = [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800];

const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** `WEBHOOK_RETRY_DELAYS`: comma-separated seconds (decimals allowed, > 0); null when malformed. */
export function parseRetryDelays(text: string): number[] | null {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => !/^\d+(\.\d+)?$/.test(part) || Number(part) <= 0)) return null;
  return parts.map(Number);
}

/** Ms until the next attempt after `failedAttempts` failed ones, or null: no attempt is left. */
export function nextDelayMs(failedAttempts: number, delaysSeconds: readonly number[], retryAfterMs: number | null, random = Math.random): number | null {
  if (failedAttempts > delaysSeconds.length) return null;
  if (retryAfterMs !== null) return Math.min(Math.max(retryAfterMs, 1000), MAX_RETRY_AFTER_MS);
  const base = delaysSeconds[failedAttempts - 1] * 1000;
  return Math.round(base * (1 + 0.2 * random()));
}
