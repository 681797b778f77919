import { invalidRequest } from '../errors/request-error';

/**
 * The feed's cursor (GET /api/v2/events, docs/events.md): the place after an event, as its
 * transaction's commit position and its seq, opaque to callers (base64url of "position.seq").
 * (0, 0) is before every event. A cursor that does not decode is 400 INVALID_REQUEST.
 */
export interface FeedPlace {
  position: bigint;
  seq: bigint;
}

export const FEED_START: FeedPlace = { position: 0n, seq: 0n };

const MAX_BIGINT = 9223372036854775807n;
const NUMBER = '(0|[1-9][0-9]{0,18})';
const PLACE = new RegExp(`^${NUMBER}\\.${NUMBER}$`);

export function encodeFeedCursor(place: FeedPlace): string {
  return Buffer.from(`${place.position}.${place.seq}`, 'latin1').toString('base64url');
}

export function decodeFeedCursor(cursor: string): FeedPlace {
  const refuse = () => invalidRequest('after is not a cursor this endpoint returned');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) throw refuse();
  const match = PLACE.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match) throw refuse();
  const place = { position: BigInt(match[1]), seq: BigInt(match[2]) };
  // Only the canonical spelling: one place, one cursor.
  if (place.position > MAX_BIGINT || place.seq > MAX_BIGINT || encodeFeedCursor(place) !== cursor) throw refuse();
  return place;
}

/** Whether place `a` comes before place `b`. */
export function isBefore(a: FeedPlace, b: FeedPlace): boolean {
  return a.position < b.position || (a.position === b.position && a.seq < b.seq);
}
