import { invalidRequest } from '../errors/request-error';
import { decodeFeedCursor, FEED_START, type FeedPlace } from './event-cursor';
import { type EventType, EVENT_TYPES, isEventType } from './event-types';

/** The query of GET /api/v2/events: `after` (a cursor), `limit` 1–1000 (default 100), `types` (comma-separated). */
export interface FeedQuery {
  after: FeedPlace;
  /** Whether `after` was given (a cursor can expire; the start cannot). */
  resumed: boolean;
  limit: number;
  types: EventType[] | null;
}

export const FEED_LIMIT_MAX = 1000;
export const FEED_LIMIT_DEFAULT = 100;
const KNOWN_PARAMETERS = new Set(['after', 'limit', 'types']);

export function parseFeedQuery(query: Record<string, unknown>): FeedQuery {
  // A misspelt parameter (`type=`) silently ignored would return every event: refuse it.
  const unknown = Object.keys(query).filter((name) => !KNOWN_PARAMETERS.has(name));
  if (unknown.length > 0) throw invalidRequest(`Unknown query parameter: ${unknown.join(', ')}`);
  const after = optional(query, 'after');
  return {
    after: after === null ? FEED_START : decodeFeedCursor(after),
    resumed: after !== null,
    limit: parseLimit(optional(query, 'limit')),
    types: parseTypes(optional(query, 'types')),
  };
}

/** One value per parameter: `?limit=1&limit=2` is as wrong as `?limit=x`. */
function optional(query: Record<string, unknown>, name: string): string | null {
  const value = query[name];
  if (value === undefined) return null;
  if (typeof value !== 'string') throw invalidRequest(`${name} must be given once, as a plain value`);
  return value;
}

function parseLimit(value: string | null): number {
  if (value === null) return FEED_LIMIT_DEFAULT;
  const limit = /^[0-9]{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= FEED_LIMIT_MAX)) throw invalidRequest(`limit must be an integer from 1 to ${FEED_LIMIT_MAX}`);
  return limit;
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
