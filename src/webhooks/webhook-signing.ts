import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signing by the Standard Webhooks specification (https://www.standardwebhooks.com): the secret is
 * `whsec_` + base64 of 32 random bytes; the signature is `v1,` + base64 HMAC-SHA256, keyed with the
 * base64-decoded secret, of `${webhook-id}.${webhook-timestamp}.${body}`.
 */
export const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
}

/** The three headers of one attempt. */
export function signedHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureOf(secret, id, timestamp, body) };
}
