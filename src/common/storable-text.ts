/** A UTF-16 surrogate that is not part of a pair (JSON allows "\ud800"; Unicode text does not). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Whether PostgreSQL can store (or be sent, as a text parameter) this string: it refuses U+0000,
 * and a lone surrogate is not valid Unicode text (Prisma refuses such a parameter).
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}
