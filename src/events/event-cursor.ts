import { createHash } from 'node:crypto';
import { invalidRequest } from '../errors/request-error';

/**
 * The feed's cursor (GET /api/v2/events, docs/events.md): the place after an event, as its
 * transaction's commit position and its seq, and the organization whose feed it is, opaque to
 * callers (base64url of "position.seq.tag"). (0, 0) is before every event. A cursor that does not
 * decode is 400 INVALID_REQUEST.
 *
 * Commit positions come from one sequence shared by every organization, so a place is meaningful
 * in every feed: another organization's cursor would silently skip this one's events before it.
 * The tag (8 hex digits of the organization id's SHA-256) makes that a 400 instead. It guards
 * against a mixed-up cursor, not an attacker: a key reads its own organization's feed whatever it
 * sends. Cursors handed out before the tag existed ("position.seq") are still accepted.
 */
export interface FeedPlace {
  position: bigint;
  seq: bigint;
}

/** A decoded `after`: the place, and the tag of the organization it was handed to (null: an untagged cursor). */
export interface FeedCursor extends FeedPlace {
  organizationTag: string | null;
}

export const FEED_START: FeedPlace = { position: 0n, seq: 0n };

const MAX_BIGINT = 9223372036854775807n;
const NUMBER = '(0|[1-9][0-9]{0,18})';
const CURSOR = new RegExp(`^${NUMBER}\\.${NUMBER}(?:\\.([0-9a-f]{8}))?$`);

/** The organization's tag in its cursors. */
export function organizationTag(organizationId: string): string {
  return createHash('sha256').update(organizationId).digest('hex').slice(0, 8);
}

export function encodeFeedCursor(place: FeedPlace, organizationId: string): string {
  return spell(`${place.position}.${place.seq}.${organizationTag(organizationId)}`);
}

export function decodeFeedCursor(cursor: string): FeedCursor {
  const refuse = () => invalidRequest('after is not a cursor this endpoint returned');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) throw refuse();
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const match = CURSOR.exec(text);
  if (!match) throw refuse();
  const decoded = { position: BigInt(match[1]), seq: BigInt(match[2]), organizationTag: match[3] ?? null };
  // Only the canonical spelling: one place, one cursor.
  if (decoded.position > MAX_BIGINT || decoded.seq > MAX_BIGINT || spell(text) !== cursor) throw refuse();
  return decoded;
}

function spell(text: string): string {
  return Buffer.from(text, 'latin1').toString('base64url');
}

/** Whether place `a` comes before place `b`. */
export function isBefore(a: FeedPlace, b: FeedPlace): boolean {
  return a.position < b.position || (a.position === b.position && a.seq < b.seq);
}
