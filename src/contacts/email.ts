/**
 * Email normalization and validity (docs/api.md#a-contact; rule 1 of #rules-and-codes): trimmed and lowercased, then
 * ASCII `local@domain` in the WHATWG `input type=email` grammar, local part ≤ 64 and whole
 * address ≤ 254 characters, and a domain with at least one dot. Internationalized addresses are
 * refused (documented in docs/decisions.md).
 */
const WHATWG_EMAIL =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

/** True when an already normalized email is valid. */
export function isValidEmail(email: string): boolean {
  if (email.length > 254 || !WHATWG_EMAIL.test(email)) return false;
  const at = email.indexOf('@');
  return at <= 64 && email.slice(at + 1).includes('.');
}
