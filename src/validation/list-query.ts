import { invalidRequest } from '../errors/request-error';

/** Every list-style GET (contacts, suppressions, events, deliveries): `limit` 1–1000, default 100 (contract section 16). */
export const LIST_LIMIT_MAX = 1000;
export const LIST_LIMIT_DEFAULT = 100;

/** One value per parameter: `?limit=1&limit=2` is as wrong as `?limit=x`. */
export function singleQueryValue(query: Record<string, unknown>, name: string): string | null {
  const value = query[name];
  if (value === undefined) return null;
  if (typeof value !== 'string') throw invalidRequest(`${name} must be given once, as a plain value`);
  return value;
}

/** `limit` of a list-style GET: absent → the default; otherwise an integer from 1 to the maximum. */
export function parseListLimit(value: string | null): number {
  if (value === null) return LIST_LIMIT_DEFAULT;
  const limit = /^[0-9]{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= LIST_LIMIT_MAX)) throw invalidRequest(`limit must be an integer from 1 to ${LIST_LIMIT_MAX}`);
  return limit;
}
