import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, parseListLimit, singleQueryValue } from '../validation/list-query';
import { invalidRequest } from '../errors/request-error';
import { decodeFeedCursor, FEED_START, type FeedCursor } from './event-cursor';
import { type EventType, EVENT_TYPES, isEventType } from './event-types';

/** The query of GET /api/v2/events: `after` (a cursor), `limit` 1–1000 (default 100), `types` (comma-separated). */
export interface FeedQuery {
  /** Where to start: the given cursor's place, or FEED_START (untagged) without one. */
  after: FeedCursor;
  /** Whether `after` was given (a cursor can expire; the start cannot). */
  resumed: boolean;
  limit: number;
  types: EventType[] | null;
}

export const FEED_LIMIT_MAX = LIST_LIMIT_MAX;
export const FEED_LIMIT_DEFAULT = LIST_LIMIT_DEFAULT;
const KNOWN_PARAMETERS = new Set(['after', 'limit', 'types']);

export function parseFeedQuery(query: Record<string, unknown>): FeedQuery {
  // A misspelt parameter (`type=`) silently ignored would return every event: refuse it.
  const unknown = Object.keys(query).filter((name) => !KNOWN_PARAMETERS.has(name));
  if (unknown.length > 0) throw invalidRequest(`Unknown query parameter: ${unknown.join(', ')}`);
  const after = singleQueryValue(query, 'after');
  return {
    after: after === null ? { ...FEED_START, organizationTag: null } : decodeFeedCursor(after),
    resumed: after !== null,
    limit: parseListLimit(singleQueryValue(query, 'limit')),
    types: parseTypes(singleQueryValue(query, 'types')),
  };
}

function parseTypes(value: string | null): EventType[] | null {
  if (value === null) return null;
  const types = value.split(',');
  const unknown = types.filter((type) => !isEventType(type));
  if (unknown.length > 0) {
    throw invalidRequest(`types must be comma-separated event types (${EVENT_TYPES.join(', ')}); unknown: ${JSON.stringify(unknown[0])}`);
  }
  return [...new Set(types as EventType[])];
}
