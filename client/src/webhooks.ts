import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifies a webhook delivery of Contact Sync (Standard Webhooks: https://www.standardwebhooks.com)
 * and returns the parsed event. `body` must be the raw body exactly as received (before any JSON
 * parsing); `headers` may be a plain object (any case) or a Fetch `Headers`. Throws
 * WebhookVerificationError when a header is missing, the timestamp is more than `toleranceSeconds`
 * (default 300) away from now, or no signature matches. Deduplicate by `event.id` (= `webhook-id`):
 * delivery is at least once.
 */
export function verifyWebhook<T = WebhookEvent>(
  secret: string,
  headers: Record<string, string | string[] | undefined> | { get(name: string): string | null },
  body: string | Uint8Array,
  options: { toleranceSeconds?: number; now?: Date } = {},
): T {
  const header = (name: string): string => {
    const value = typeof headers.get === 'function' ? (headers as { get(n: string): string | null }).get(name) : lookup(headers as Record<string, string | string[] | undefined>, name);
    if (!value) throw new WebhookVerificationError(`Missing ${name} header`);
    return value;
  };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('Timestamp too old or too new');
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${text}`).digest();
  const match = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!match) throw new WebhookVerificationError('No matching signature');
  return JSON.parse(text) as T;
}

function lookup(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/** The body of a delivery: an event as GET /api/v2/events shows it. */
export interface WebhookEvent {
  id: string;
  type: string;
  occurredAt: string;
  requestId: string | null;
  data: Record<string, unknown>;
}
