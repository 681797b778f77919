import { SqlParams } from '../database/sql-params';
import { defineStatement } from '../database/statements';

/**
 * The events' part of another module's statement: an event's public id (`evt_` + its UUID's 32 hex
 * digits, as publicEventId in event-types.ts) from its uuid column `uuid`.
 */
export const publicEventIdPart = (uuid: string): string => `'evt_' || replace(${uuid}::text, '-', '')`;

/**
 * The events of one organization's change, in the caller's transaction: $1 organization, $2 the
 * request id (null for the admin command line), $3 when they happened, then one array per column,
 * element i of each being event i ($4 ids, $5 types, $6 contact ids, $7 emails, $8 texts); `seq`
 * follows the arrays' order. Run by `writeEvents` (event-writes.ts); the contacts write holds the
 * same INSERT as a part (eventsInsertPart), with each event's `data.contact` rendered by its own
 * statement.
 *
 * Each event's text (`body`, the feed's and a webhook's bytes) is rendered in the service
 * (renderEvent) and stored as it came: PostgreSQL neither parses nor renders JSON for it. Only the
 * first row queues the commit-position trigger (takes_position): one organization, one statement,
 * so one position per transaction, not a trigger per event. Arrays of different lengths leave a
 * NULL in a NOT NULL column and fail the statement, never drop an event.
 */
export const INSERT_EVENTS = defineStatement<Record<string, never>>({
  name: 'events.insert',
  text: insertEventsText(),
  columns: [],
  sample: (organizationId) => [organizationId, null, null, [], [], [], [], []],
});

function insertEventsText(): string {
  const p = new SqlParams();
  return eventsInsertPart(p, p.add('organization'));
}

/**
 * The events' part of a statement that writes for several modules in one round trip (the contacts
 * write, contacts.statements.ts): INSERT_EVENTS's INSERT, its placeholders numbered by `p` after
 * the caller's, `organization` the caller's placeholder; its values are `eventsValues`
 * (event-writes.ts), in this order.
 *
 * With `contactTexts`, each event's `data.contact` is rendered by the caller's statement: the name
 * of a relation of it with columns `contact_id` and `contact` (the contact's JSON text), one row a
 * contact. Each event's text is then its text before the contact, the contact's row of its
 * `contact_id`, and its text after (values: `eventsAroundContactValues`); an event whose contact
 * has no row gets no text and fails the statement (NOT NULL), never written without it.
 */
export function eventsInsertPart(p: SqlParams, organization: string, contactTexts?: string): string {
  const [requestId, at, ids, types, contactIds, emails] = ['request_id', 'occurred_at', 'ids', 'types', 'contact_ids', 'emails'].map((name) => p.add(name));
  const columns = `${ids}::uuid[], ${types}::text[], ${contactIds}::text[], ${emails}::text[]`;
  const insert = `INSERT INTO events (organization_id, request_id, occurred_at, id, type, contact_id, email, body, takes_position)
    SELECT ${organization}, ${requestId}::text, ${at}::timestamptz, r.id, r.type, r.contact_id, r.email`;
  if (contactTexts === undefined) {
    const bodies = p.add('bodies');
    return `${insert}, r.body, r.n = 1
    FROM unnest(${columns}, ${bodies}::text[]) WITH ORDINALITY AS r(id, type, contact_id, email, body, n)
    ORDER BY r.n`;
  }
  const [heads, tails] = [p.add('heads'), p.add('tails')];
  return `${insert}, r.head || t.contact || r.tail, r.n = 1
    FROM unnest(${columns}, ${heads}::text[], ${tails}::text[]) WITH ORDINALITY AS r(id, type, contact_id, email, head, tail, n)
    LEFT JOIN ${contactTexts} AS t ON t.contact_id = r.contact_id
    ORDER BY r.n`;
}

/**
 * A row of FEED_PAGE: up to 100 consecutive events of the page as JSON text and the last one's
 * place, with the organization's retention boundary; one row with `events` null when the page is empty.
 */
export interface FeedPageRow {
  /**
   * The chunk's place in the page (0, 1, …; null with `events`). The rows come in no particular
   * order: the reader sorts them by it (an ORDER BY here would sort the page's chunk rows once more
   * after the join, and hold them all until the last was made).
   */
  chunk: number | null;
  /**
   * The chunk's events as the feed shows them, comma-separated, in commit order (the members of
   * the page's JSON array): `{"id":"evt_…","type":…,"occurredAt":…,"requestId":…,"data":…}`,
   * each event's stored text (events.body). Null in the one row of an empty page.
   */
  events: string | null;
  /** How many events the chunk holds (null with `events`). */
  eventCount: number | null;
  /** bigint as text: the commit position of the chunk's last event's transaction (null with `events`). */
  lastPosition: string | null;
  /** bigint as text: the chunk's last event's order within its transaction (null with `events`). */
  lastSeq: string | null;
  /**
   * bigint as text: the place of the last event the retention sweep deleted for the organization
   * (event_retention), read in the page's own snapshot; null when none was ever deleted. The same in every row.
   */
  prunedPosition: string | null;
  prunedSeq: string | null;
  /**
   * bigint as text: a horizon of the organization for LATER statements (event_horizon_if_free),
   * taken during this one; null when a commit of the organization was in progress. The same in every row.
   */
  nextHorizon: string | null;
}

/**
 * The horizon of organization $1 (docs/events.md, "How it is kept"): waits until every
 * transaction that took a commit position for the organization has ended (committed and visible, or
 * rolled back), then returns the last position handed out. Every position of the organization at or
 * below it is then visible to any LATER statement or gone for good. Its own statement, always before
 * FEED_PAGE: a page read in the same statement would use a snapshot taken before the wait ended.
 * Holds no lock when it returns (the SQL function event_horizon).
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
 * (read in an earlier statement: EVENT_HORIZON, or an earlier page's `nextHorizon`), in commit order: by their transaction's commit
 * position (event_commits, taken at COMMIT), then by seq within it. Every position of the
 * organization up to the horizon is visible to this statement or rolled back for good, so what it
 * reads is a prefix of what will ever follow the place. $5: only these types (all when null).
 *
 * The plan is an index walk of the page's transactions only: event_commits_pkey from the place,
 * and per transaction its events by events_organization_id_xid_seq_idx (a LATERAL probe), an
 * incremental sort on seq within each position, stopped by the LIMIT: a page reads about what it
 * returns, however long the organization's feed.
 *
 * PostgreSQL joins the page: the inner query selects the rows with each event's stored JSON text
 * (events.body, rendered once by its writer: nothing is rendered here); the outer ones join them, in the page's order, into rows of 100 events (one row with
 * `events` null when the page is empty), each with the place of its last event. The service joins the chunks into
 * the body without building, parsing or serializing 1,000 row objects. Chunks, not one value: a
 * text value of the whole page costs PostgreSQL several times the CPU of the same text in
 * 100-event chunks.
 *
 * The retention boundary (event_retention) comes with the page, read in the page's own snapshot:
 * the sweep deletes events and moves the boundary in one statement (EventsRepository.deleteExpired),
 * so a snapshot that misses deleted events also sees the boundary that tells it (410
 * CURSOR_EXPIRED), and no extra round trip is needed. The page's rows are LEFT JOINed to one row, so an empty page still answers the boundary;
 * the rows are not ordered here (see `chunk`).
 *
 * It also learns a horizon for the organization's next pages, `nextHorizon` (the SQL function
 * event_horizon_if_free: the horizon when no commit of the organization is
 * in progress, else null, never waiting). Not for this page: this statement's snapshot was taken
 * before that lock was granted. The reader keeps it, so that a later page can be read up to it in
 * one round trip (EventsFeedRepository).
 */
export const FEED_PAGE = defineStatement<FeedPageRow>({
  name: 'events.feed-page',
  text: `SELECT page.chunk::int AS chunk, page.events, page."eventCount", page."lastPosition", page."lastSeq",
           r.pruned_position::text AS "prunedPosition", r.pruned_seq::text AS "prunedSeq", one.horizon::text AS "nextHorizon"
    FROM (SELECT event_horizon_if_free($1) AS horizon) one
    LEFT JOIN event_retention r ON r.organization_id = $1
    LEFT JOIN (
    SELECT q.chunk, string_agg(q.event, ',' ORDER BY q.position, q.seq) AS events, count(*)::int AS "eventCount", max(q.position)::text AS "lastPosition",
           (array_agg(q.seq ORDER BY q.position DESC, q.seq DESC))[1]::text AS "lastSeq"
    FROM (SELECT p.*, (row_number() OVER (ORDER BY p.position, p.seq) - 1) / 100 AS chunk FROM (
    SELECT c.position, e.seq,
           e.body AS event
    FROM event_commits c
    CROSS JOIN LATERAL (
      SELECT e.seq, e.body
      FROM events e
      WHERE e.organization_id = c.organization_id AND e.xid = c.xid
        AND (c.position > $2::bigint OR e.seq > $3::bigint)
        AND ($5::text[] IS NULL OR e.type = ANY($5::text[]))
      ORDER BY e.seq
    ) e
    WHERE c.organization_id = $1 AND c.position >= $2::bigint AND c.position <= $6::bigint
    ORDER BY c.position, e.seq
    LIMIT $4::int
    ) p) q
    GROUP BY q.chunk
    ) page ON true`,
  columns: ['chunk', 'events', 'eventCount', 'lastPosition', 'lastSeq', 'prunedPosition', 'prunedSeq', 'nextHorizon'],
  sample: (organizationId) => [organizationId, '0', '0', 1, null, '0'],
});

export const EVENTS_STATEMENTS = [INSERT_EVENTS, EVENT_HORIZON, FEED_PAGE];
