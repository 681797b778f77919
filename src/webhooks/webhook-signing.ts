import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { boundedMemo } from '../common/bounded-memo';

/**
 * Signing by the Standard Webhooks specification (https://www.standardwebhooks.com): the secret is
 * `whsec_` + base64 of 32 random bytes; the signature is `v1,` + base64 HMAC-SHA256, keyed with the
 * base64-decoded secret, of `${webhook-id}.${webhook-timestamp}.${body}`.
 */
export const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The HMAC key of each secret in use, decoded once (every attempt of a webhook signs with the same
 * secret: decoding it and wrapping it in a key object per attempt was a few µs each). A rotated secret is a new string, so the
 * old one is never used to sign again (it only stays here until the next start-over).
 */
const keyOf = boundedMemo(1000, (secret: string): KeyObject =>
  createSecretKey(Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')),
);

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  return 'v1,' + createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
}

/** The three headers of one attempt. */
export function signedHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureOf(secret, id, timestamp, body) };
}
