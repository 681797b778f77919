import { isStorableText } from '../../common/storable-text';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, parseListLimit, singleQueryValue } from '../../validation/list-query';
import { invalidRequest } from '../../errors/request-error';
import { instantParameter } from '../../validation/instant-parameter';

/**
 * The query of GET /api/v2/contacts (docs/api.md, "Listing contacts"): `limit` 1–1000 (default
 * 100), the filters `listId`, `suppressed`, `updatedSince`, and the opaque `cursor`, which holds
 * the last email of the previous page and the filters it was made for.
 */
export const LISTING_LIMIT_MAX = LIST_LIMIT_MAX;
export const LISTING_LIMIT_DEFAULT = LIST_LIMIT_DEFAULT;
/** The filters' query parameters (parseListingFilters). */
export const LISTING_FILTER_PARAMETERS = ['listId', 'suppressed', 'updatedSince'] as const;
const KNOWN_PARAMETERS = new Set(['limit', 'cursor', ...LISTING_FILTER_PARAMETERS]);

export interface ListingFilters {
  listId: string | null;
  suppressed: boolean | null;
  /** Contacts with `updatedAt` ≥ this instant (ms precision, as stored). */
  updatedSince: Date | null;
}

export interface ListingQuery {
  limit: number;
  /** Only contacts whose email sorts after this one (byte order); null from the start. */
  after: string | null;
  filters: ListingFilters;
}

export function parseListingQuery(query: Record<string, unknown>): ListingQuery {
  // A misspelt filter (`listid=`) silently ignored would list every contact: refuse it.
  const unknown = Object.keys(query).filter((name) => !KNOWN_PARAMETERS.has(name));
  if (unknown.length > 0) throw invalidRequest(`Unknown query parameter: ${unknown.join(', ')}`);
  const filters = parseListingFilters(query);
  const cursor = singleQueryValue(query, 'cursor');
  return {
    limit: parseListLimit(singleQueryValue(query, 'limit')),
    after: cursor === null ? null : decodeCursor(cursor, filters),
    filters,
  };
}

/**
 * The filters `listId`, `suppressed` and `updatedSince` of a query (the listing's, and the export's:
 * contract section 17). The caller refuses the parameters it does not know.
 */
export function parseListingFilters(query: Record<string, unknown>): ListingFilters {
  return {
    listId: singleQueryValue(query, 'listId'),
    suppressed: parseSuppressed(singleQueryValue(query, 'suppressed')),
    updatedSince: instantParameter('updatedSince', singleQueryValue(query, 'updatedSince')),
  };
}

function parseSuppressed(value: string | null): boolean | null {
  if (value === null) return null;
  if (value === 'true' || value === 'false') return value === 'true';
  throw invalidRequest('suppressed must be true or false');
}

interface CursorContent {
  v: 1;
  /** The last email of the page it follows. */
  a: string;
  /** The filters it was made for (filtersKey). */
  f: string;
}

/** The filters as one comparable string: a cursor is valid only with the filters it was made for. */
function filtersKey(filters: ListingFilters): string {
  return JSON.stringify([filters.listId, filters.suppressed, filters.updatedSince?.getTime() ?? null]);
}

export function encodeCursor(lastEmail: string, filters: ListingFilters): string {
  const content: CursorContent = { v: 1, a: lastEmail, f: filtersKey(filters) };
  return Buffer.from(JSON.stringify(content), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, filters: ListingFilters): string {
  const malformed = () => invalidRequest('cursor is not a cursor this endpoint issued');
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw malformed();
  let content: Partial<CursorContent>;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorContent>;
  } catch {
    throw malformed();
  }
  if (
    typeof content !== 'object' || content === null || content.v !== 1 ||
    typeof content.a !== 'string' || !isStorableText(content.a) || typeof content.f !== 'string'
  ) {
    throw malformed();
  }
  if (content.f !== filtersKey(filters)) {
    throw invalidRequest('cursor was issued for other filters: send the same listId, suppressed and updatedSince as the first page');
  }
  return content.a;
}
