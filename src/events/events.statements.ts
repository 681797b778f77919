import type { SqlParams } from '../database/sql-params';
import type { EventData, EventType, NewEvent } from './event-types';
import { defineStatement } from '../database/statements';

/**
 * The INSERT of a request's events from parameter arrays, its placeholders numbered by `p` in the
 * order of `eventInsertValues`: a CTE of the contacts write statement (contacts.statements.ts), so
 * the POST pipeline writes its events in the statement that writes its contacts (no extra round
 * trip). `organization` is the statement's organization placeholder. `seq` follows the arrays'
 * order. The data travel as JSON text (jsonb: contact values are storable text, never U+0000).
 */
export function eventsInsert(p: SqlParams, organization: string): string {
  const [requestId, types, contactIds, emails, data] = ['event_request_id', 'event_types', 'event_contact_ids', 'event_emails', 'event_data'].map(
    (name) => p.add(name),
  );
  return `INSERT INTO events (organization_id, type, request_id, contact_id, email, data)
        SELECT ${organization}, e.type, ${requestId}::text, e.contact_id, e.email, e.data::jsonb
        FROM unnest(${types}::text[], ${contactIds}::text[], ${emails}::text[], ${data}::text[])
             WITH ORDINALITY AS e(type, contact_id, email, data, n)
        ORDER BY e.n`;
}

/** The values of `eventsInsert`, in its order: the events of ONE request of ONE organization. */
export function eventInsertValues(requestId: string | null, events: readonly NewEvent[]): unknown[] {
  return [
    requestId,
    events.map((event) => event.type),
    events.map((event) => event.contactId ?? null),
    events.map((event) => event.email ?? null),
    events.map((event) => JSON.stringify(event.data)),
  ];
}

/** `eventInsertValues` of no events (statement samples). */
export const NO_EVENT_VALUES: readonly unknown[] = [null, [], [], [], []];

/** A row of FEED_PAGE: the event's place in the feed and the event as the feed shows it. */
export interface FeedPageRow {
  /** bigint as text: the commit position of the event's transaction. */
  position: string;
  /** bigint as text: the event's order within its transaction. */
  seq: string;
  /** `evt_` + 32 hex digits (publicEventId). */
  id: string;
  type: EventType;
  /** As JavaScript's toISOString: UTC, milliseconds, `Z`. */
  occurredAt: string;
  requestId: string | null;
  /** jsonb, parsed by the pg driver. */
  data: EventData;
}

/**
 * The horizon of organization $1 (docs/events.md, "How it is kept"): waits until every
 * transaction that took a commit position for the organization has ended (committed and visible, or
 * rolled back), then returns the last position handed out. Every position of the organization at or
 * below it is then visible to any LATER statement or gone for good. Its own statement, always before
 * FEED_PAGE: a page read in the same statement would use a snapshot taken before the wait ended.
 * Holds no lock when it returns (event_horizon, migration 20261124090000_event_position_sequence).
 */
export const EVENT_HORIZON = defineStatement<{ horizon: string }>({
  name: 'events.horizon',
  text: `SELECT event_horizon($1)::text AS horizon`,
  columns: ['horizon'],
  sample: (organizationId) => [organizationId],
});

/**
 * A page of the feed (GET /api/v2/events, docs/events.md "How it is kept"): up to $4 committed
 * events of organization $1 after the place ($2 position, $3 seq) and at or below the horizon $6
 * (EVENT_HORIZON, read in an earlier statement), in commit order: by their transaction's commit
 * position (event_commits, taken at COMMIT), then by seq within it. Every position of the
 * organization up to the horizon is visible to this statement or rolled back for good, so what it
 * reads is a prefix of what will ever follow the place. $5: only these types (all when null).
 *
 * The plan is an index walk of the page's transactions only: event_commits_pkey from the place,
 * and per transaction its events by events_organization_id_xid_seq_idx (a LATERAL probe), an
 * incremental sort on seq within each position, stopped by the LIMIT (docs/performance.md).
 *
 * On the pg pool, not Prisma's $queryRaw: Prisma's decoding of 1,000 rows was most of the page's
 * CPU (docs/performance.md, "Events feed"). The id and occurredAt come back as the strings the API
 * shows (no Date or UUID handling per row). `data` is returned as jsonb (parsed by the driver) and
 * not as its text: jsonb's text puts a space after every `:` and `,`, so splicing it into the body
 * would change the answer's bytes, and PostgreSQL has no compact rendering of jsonb (measured: the
 * texts joined in Node cost as much CPU as parse + JSON.stringify, docs/performance.md).
 */
export const FEED_PAGE = defineStatement<FeedPageRow>({
  name: 'events.feed-page',
  text: `SELECT c.position::text AS position, e.seq::text AS seq, 'evt_' || replace(e.id::text, '-', '') AS id, e.type,
           to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "occurredAt",
           e.request_id AS "requestId", e.data
    FROM event_commits c
    CROSS JOIN LATERAL (
      SELECT e.seq, e.id, e.type, e.occurred_at, e.request_id, e.data
      FROM events e
      WHERE e.organization_id = c.organization_id AND e.xid = c.xid
        AND (c.position > $2::bigint OR e.seq > $3::bigint)
        AND ($5::text[] IS NULL OR e.type = ANY($5::text[]))
      ORDER BY e.seq
    ) e
    WHERE c.organization_id = $1 AND c.position >= $2::bigint AND c.position <= $6::bigint
    ORDER BY c.position, e.seq
    LIMIT $4::int`,
  columns: ['position', 'seq', 'id', 'type', 'occurredAt', 'requestId', 'data'],
  sample: (organizationId) => [organizationId, '0', '0', 1, null, '0'],
});

export const EVENTS_STATEMENTS = [EVENT_HORIZON, FEED_PAGE];
