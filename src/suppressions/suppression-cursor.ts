import { invalidRequest } from '../errors/request-error';

/**
 * The opaque cursor of GET /api/v2/suppressions (docs/api.md, "Listing suppressions"): the last
 * email of the page and the filter it was made under, base64url JSON. A cursor used with another
 * filter, or one that does not decode, is 400 INVALID_REQUEST.
 */
interface CursorContent {
  after: string;
  reason: string | null;
}

export function encodeSuppressionCursor(content: CursorContent): string {
  return Buffer.from(JSON.stringify({ a: content.after, r: content.reason }), 'utf8').toString('base64url');
}

export function decodeSuppressionCursor(cursor: string, reason: string | null): string {
  let decoded: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidRequest('cursor is not a cursor this endpoint returned');
  }
  const content = decoded as { a?: unknown; r?: unknown };
  if (typeof decoded !== 'object' || decoded === null || typeof content.a !== 'string' || !(content.r === null || typeof content.r === 'string')) {
    throw invalidRequest('cursor is not a cursor this endpoint returned');
  }
  if (content.r !== reason) throw invalidRequest('cursor was made with another reason filter: start again without a cursor');
  return content.a;
}
