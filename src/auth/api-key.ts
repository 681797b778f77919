import { createHash, randomBytes } from 'node:crypto';

/** Recognisable prefix of every key, so a leaked key can be spotted by secret scanners. */
export const API_KEY_PREFIX = 'csk_';

/** A new key: 256 bits of randomness after the prefix. Shown once; only its hash is stored. */
export function generateApiKey(): { key: string; prefix: string; keyHash: string } {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: key.slice(0, API_KEY_PREFIX.length + 6), keyHash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
