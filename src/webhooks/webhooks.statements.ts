import { defineStatement } from '../database/statements';
import { isoTimeSql } from '../database/sql-text';
import { publicEventIdPart } from '../events/events.statements';

/**
 * The fan-out's two statements (polled every WEBHOOK_POLL_MS by every instance, webhooks or not; the
 * second also takes fresh deliveries for their first attempt), the claim (the other attempts) and the
 * outcomes, as registered statements on the pg pool (the
 * project's form of raw SQL, docs/extending.md): all are set-based and need `SKIP LOCKED`, which
 * Prisma Client cannot express. The fan-out's run on every instance several times a second, webhooks
 * or not, so through Prisma's `$queryRaw` an idle instance would spend CPU on its polling loops
 * alone. The event comes back as the JSON text the
 * receiver gets (events.body, stored when the event was written): no JSON rendered per attempt.
 */

/**
 * The fan-out's first statement (docs/events.md, "How it is kept"): each organization that has an
 * enabled webhook with a visible commit after its feed position, with its horizon (bigint as text)
 * when it can be had without waiting (event_horizon_if_free, as the feed's next pages take theirs),
 * else null: a commit of the organization is in progress. A waiting horizon (event_horizon) makes
 * the organization's new commits wait behind it, at every round. None when nothing is new: the common
 * idle poll ends here.
 */
export const WEBHOOK_FAN_OUT_HORIZONS = defineStatement<{ organizationId: string; horizon: string | null }>({
  name: 'webhooks.fan-out-horizons',
  text: `SELECT o.organization_id AS "organizationId", event_horizon_if_free(o.organization_id)::text AS horizon FROM (
        SELECT DISTINCT w.organization_id FROM webhooks w
        WHERE w.enabled AND (
          EXISTS (SELECT 1 FROM event_commits c WHERE c.organization_id = w.organization_id AND c.position > w.feed_position)
          -- the rest of a transaction whose events a full page cut
          OR EXISTS (SELECT 1 FROM event_commits c JOIN events e ON e.organization_id = c.organization_id AND e.xid = c.xid
                     WHERE c.organization_id = w.organization_id AND c.position = w.feed_position AND e.seq > w.feed_seq))) o`,
  columns: ['organizationId', 'horizon'],
  sample: () => [],
});

/**
 * The horizons of organizations $1 that WEBHOOK_FAN_OUT_HORIZONS found busy and for which no earlier
 * horizon is known: waits for their commits in progress (event_horizons: one lock at a time, each
 * released before the next).
 */
export const WEBHOOK_FAN_OUT_HORIZONS_WAIT = defineStatement<{ organizationId: string; horizon: string }>({
  name: 'webhooks.fan-out-horizons-wait',
  text: `SELECT organization_id AS "organizationId", horizon::text AS horizon FROM event_horizons($1::text[])`,
  columns: ['organizationId', 'horizon'],
  sample: () => [[]],
});

/** A delivery taken for one attempt, with what the attempt needs (rows of WEBHOOK_CLAIM and WEBHOOK_FAN_OUT). */
export interface ClaimRow {
  /** The delivery's key with webhookId (webhook_deliveries' primary key): its commit's position and the event's seq, bigint as text. */
  position: string;
  seq: string;
  webhookId: string;
  /** Attempts made so far, this one included. */
  attemptCount: number;
  url: string;
  secret: string;
  /** `evt_` + 32 hex digits (the webhook-id); null when retention removed the event. */
  eventId: string | null;
  /** The event as JSON text, as the feed shows it (events.body): the body sent and signed. */
  body: string | null;
}

/**
 * The fan-out's second statement, in a new snapshot: the events up to each organization's horizon
 * ($1 organization ids, $2 their horizons as bigint text) of every enabled webhook that no other
 * instance is taking (SKIP LOCKED), at most $3 per webhook; each webhook's feed position moves past
 * them (a data-modifying CTE runs whether or not it is read).
 *
 * Up to $4 of them are taken at once for their first attempt by owner $5, for $7 seconds: each
 * webhook up to its share (what brings its attempts in flight here, $9/$10, to the per-webhook
 * share $8), the least-loaded webhooks first, then commit order; beyond shares only while $12 of
 * the $4 free slots stay free (the reserve, for webhooks under their share). Not as
 * delivery rows but as one lease record per webhook (webhook_leases, token $6) naming them. Their
 * delivery rows are inserted when their attempts end, with the outcome (WEBHOOK_COMPLETE): a
 * delivered event is written once, its row in the primary key only (not in the pending indexes).
 * The rest (over $4, or held by per-contact order) are inserted as pending rows for the claim.
 * Per-contact order: an event is leased only when its contact has no pending or leased delivery
 * for the webhook, is in no lease record of the webhook (an attempt under way, or one whose
 * instance died and is not yet taken over), and has no earlier event in this page.
 *
 * A plain INSERT, no `ON CONFLICT`: the page starts after the webhook's feed position, read from
 * the row this statement holds (FOR NO KEY UPDATE: a concurrent round skips the webhook, a later
 * one reads the position this one moved), so no delivery of these events can exist yet. A
 * speculative insertion would cost every delivery a probe of the unique index before the insert, a
 * speculative-insertion lock and a second WAL record. Were one there (a bug in moving the position), the unique index fails the round
 * (23505, a fault line) instead of the row being skipped silently.
 *
 * Returns three kinds of rows, their other columns null: one with how many events were read and
 * how many delivery rows inserted (for the claim); one per webhook with events leased, with its url
 * and secret; one per event leased, with its key and event, so that one round trip both moves the
 * feed and hands the attempts what they send.
 */
export const WEBHOOK_FAN_OUT = defineStatement<{ read: number | null; inserted: number | null; full: boolean | null } & { [K in Exclude<keyof ClaimRow, 'attemptCount'>]: ClaimRow[K] | null }>({
  name: 'webhooks.fan-out',
  text: `WITH h AS (
        SELECT * FROM unnest($1::text[], $2::bigint[]) AS h(organization_id, horizon)
      ), w AS (
        SELECT w.id, w.organization_id, w.types, w.feed_position, w.feed_seq, w.url, w.secret, h.horizon FROM webhooks w
        JOIN h ON h.organization_id = w.organization_id
        WHERE w.enabled ORDER BY w.id FOR NO KEY UPDATE OF w SKIP LOCKED
      ), load AS (
        SELECT * FROM unnest($9::text[], $10::int[]) AS l(webhook_id, n)
      ), bound AS (
        -- each webhook's page while slots are being leased ($11): its share, or the free slots above the reserve $12 when more; else the whole page
        SELECT w.*, CASE WHEN $11::boolean THEN least($3::int, greatest($8::int - coalesce(l.n, 0), $4::int - $12::int, 0)) ELSE $3::int END AS share
        FROM w LEFT JOIN load l ON l.webhook_id = w.id
      ), page AS (
        SELECT w.id AS webhook_id, w.types, w.share, ev.* FROM bound w CROSS JOIN LATERAL (
          SELECT c.position, e.seq, e.id AS event_id, e.type, e.contact_id
          FROM event_commits c JOIN events e ON e.organization_id = c.organization_id AND e.xid = c.xid
          WHERE c.organization_id = w.organization_id AND (c.position, e.seq) > (w.feed_position, w.feed_seq)
            -- implied by the line above, which spans two tables: the bound of event_commits_pkey's walk
            AND c.position >= w.feed_position AND c.position <= w.horizon
          ORDER BY c.position, e.seq
          LIMIT w.share
        ) ev
      ), held AS MATERIALIZED (
        SELECT l.webhook_id, u.contact_id FROM webhook_leases l CROSS JOIN LATERAL unnest(l.contact_ids) AS u(contact_id)
        WHERE l.webhook_id IN (SELECT id FROM w) AND u.contact_id IS NOT NULL
      ), wanted AS (
        SELECT p.webhook_id, p.position, p.seq, p.event_id, p.type, p.contact_id,
          p.contact_id IS NULL OR (row_number() OVER (PARTITION BY p.webhook_id, p.contact_id ORDER BY p.position, p.seq) = 1
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries q
                            WHERE q.webhook_id = p.webhook_id AND q.contact_id = p.contact_id AND q.state IN ('pending', 'leased'))
            -- a hashed subplan: the lease records' contacts read once per statement, not once per event
            AND (p.webhook_id, p.contact_id) NOT IN (SELECT webhook_id, contact_id FROM held)) AS free
        FROM page p WHERE p.type = ANY(p.types)
      ), ranked AS (
        SELECT p.*, CASE WHEN p.free THEN coalesce(l.n, 0)
          + count(*) FILTER (WHERE p.free) OVER (PARTITION BY p.webhook_id ORDER BY p.position, p.seq ROWS UNBOUNDED PRECEDING) END AS webhook_load
        FROM wanted p LEFT JOIN load l ON l.webhook_id = p.webhook_id
      ), ordered AS (
        SELECT *, row_number() OVER (ORDER BY webhook_load <= $8::int DESC NULLS LAST, webhook_load, position, seq, webhook_id) AS rank
        FROM ranked
      ), taken AS (
        SELECT *, webhook_load IS NOT NULL AND (webhook_load <= $8::int OR rank <= $4::int - $12::int) AND rank <= $4::int AS leased
        FROM ordered
      ), lease AS (
        INSERT INTO webhook_leases (webhook_id, token, leased_by, leased_at, expires_at, positions, seqs, contact_ids, open)
        SELECT webhook_id, $6::text, $5::text, now(), now() + make_interval(secs => $7::int),
          array_agg(position ORDER BY position, seq), array_agg(seq ORDER BY position, seq),
          array_agg(contact_id ORDER BY position, seq) FILTER (WHERE contact_id IS NOT NULL), count(*)::int
        FROM taken WHERE leased GROUP BY webhook_id
      ), ins AS (
        INSERT INTO webhook_deliveries (webhook_id, event_seq, event_id, type, contact_id, position, seq)
        SELECT webhook_id, seq, event_id, type, contact_id, position, seq FROM taken WHERE NOT leased
        RETURNING 1
      ), last AS (
        SELECT DISTINCT ON (webhook_id) webhook_id, position, seq FROM page ORDER BY webhook_id, position DESC, seq DESC
      ), moved AS (
        UPDATE webhooks SET feed_position = last.position, feed_seq = last.seq FROM last WHERE webhooks.id = last.webhook_id
      )
      SELECT n.read, n.inserted, n.full, NULL::text AS "webhookId", NULL::text AS url, NULL::text AS secret, NULL::text AS position, NULL::text AS seq,
        NULL::text AS "eventId", NULL::text AS body
      FROM (SELECT (SELECT count(*) FROM page)::int AS read, (SELECT count(*) FROM ins)::int AS inserted,
        EXISTS (SELECT 1 FROM page GROUP BY webhook_id HAVING count(*) >= min(share)) AS full) n
      UNION ALL
      SELECT NULL, NULL, NULL, w.id, w.url, w.secret, NULL, NULL, NULL, NULL FROM w WHERE w.id IN (SELECT webhook_id FROM taken WHERE leased)
      UNION ALL
      SELECT NULL, NULL, NULL, t.webhook_id, NULL, NULL, t.position::text, t.seq::text, ${publicEventIdPart('e.id')}, e.body
      FROM taken t JOIN events e ON e.seq = t.seq WHERE t.leased`,
  columns: ['read', 'inserted', 'full', 'webhookId', 'url', 'secret', 'position', 'seq', 'eventId', 'body'],
  sample: () => [[], [], 1, 0, 'warm-up', 'warm-up', 30, 1, [], [], false, 0],
  // Planning it takes longer than running it; every table is reached by key from its small arrays.
  plan: 'generic',
});

/**
 * Takes over up to 8 lease records of the fan-out whose lease ended (their instance died mid-attempt:
 * expires_at passed; SKIP LOCKED on the record) of enabled webhooks: each record goes, and each of
 * its events without a delivery row gets one, 'leased' under the dead lease, already ended (its
 * owner, token and times), attempt 1: the claim then takes it first, as any ended lease, and logs
 * the lost attempt. Run by the claim loop at most once a second (WEBHOOK_TAKE_OVER_EVERY_MS in the
 * worker), not at every claim: it is three steps that an idle claim would plan every poll for
 * nothing. `ON CONFLICT DO NOTHING`: a row the record's owner inserted with its outcome just before
 * (committed after this statement's snapshot) is left as it is; this is not the hot path.
 * Returns how many records and deliveries were taken over.
 */
export const WEBHOOK_TAKE_OVER = defineStatement<{ leases: number; deliveries: number }>({
  name: 'webhooks.take-over',
  text: `WITH dead AS (
        DELETE FROM webhook_leases l USING (
          SELECT x.webhook_id, x.token FROM webhook_leases x JOIN webhooks w ON w.id = x.webhook_id
          WHERE x.expires_at <= now() AND w.enabled
          ORDER BY x.expires_at
          LIMIT 8
          FOR UPDATE OF x SKIP LOCKED
        ) x
        WHERE l.webhook_id = x.webhook_id AND l.token = x.token
        RETURNING l.webhook_id, l.token, l.leased_at, l.leased_by, l.expires_at, l.positions, l.seqs
      ), revived AS (
        INSERT INTO webhook_deliveries (webhook_id, event_seq, event_id, type, contact_id, position, seq, state,
          attempt_count, next_attempt_at, lease_token, leased_at, leased_by)
        SELECT d.webhook_id, u.seq, e.id, e.type, e.contact_id, u.position, u.seq, 'leased', 1, d.expires_at, d.token, d.leased_at, d.leased_by
        FROM dead d CROSS JOIN LATERAL unnest(d.positions, d.seqs) AS u(position, seq)
        JOIN events e ON e.seq = u.seq
        ON CONFLICT (webhook_id, position, seq) DO NOTHING
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM dead)::int AS leases, (SELECT count(*) FROM revived)::int AS deliveries`,
  columns: ['leases', 'deliveries'],
  sample: () => [],
});

/**
 * Takes up to $4 due deliveries for one attempt each (SKIP LOCKED: two instances never take the
 * same one), for owner $1 with lease token $2. Taking one makes it 'leased' and pushes its
 * next_attempt_at $3 seconds ahead: that is its lease. An instance that dies mid-attempt leaves it
 * leased with a lease that ends (a first attempt's lease record gets its rows so: WEBHOOK_TAKE_OVER),
 * and the claim logs the lost attempt. A pending row waits while an earlier event of the same
 * contact is pending or leased for the same webhook, or is in one of its lease records (per-contact
 * commit order).
 *
 * Fair shares: $6/$7 are this instance's attempts in flight per webhook; each webhook may take
 * what brings it to $5 (its share), and beyond it only while $8 of the $4 free slots stay free
 * (the reserve: slots only webhooks under their share take). Candidates: ended leases from the
 * index of leased rows (in the order the leases ended), and the due pending rows of each webhook
 * that has any, found by a skip scan of the pending index (one probe per webhook with pending
 * deliveries, whatever the number of webhooks), each in next_attempt_at order and at most its part
 * of the free slots (so the rows locked are bounded by the slots). Candidates within
 * shares are taken first, least-loaded first: each ranked by its organization's attempts in flight
 * here plus its place in that organization's candidates (themselves interleaved by each webhook's
 * load), so that free slots go round the organizations, then round their webhooks; within a rank,
 * the oldest due first; then candidates beyond shares, up to the reserve. One webhook's backlog
 * therefore never holds up another's due deliveries, and uses the slots no other needs.
 */
export const WEBHOOK_CLAIM = defineStatement<ClaimRow>({
  name: 'webhooks.claim',
  text: `WITH RECURSIVE held AS MATERIALIZED (
        SELECT l.webhook_id, u.contact_id FROM webhook_leases l CROSS JOIN LATERAL unnest(l.contact_ids) AS u(contact_id)
        WHERE u.contact_id IS NOT NULL
      ), load AS (
        SELECT * FROM unnest($6::text[], $7::int[]) AS l(webhook_id, n)
      ), org_load AS (
        SELECT w.organization_id, sum(l.n)::int AS n FROM load l JOIN webhooks w ON w.id = l.webhook_id GROUP BY w.organization_id
      ), pending_hooks AS (
        -- a skip scan of the pending index: each webhook with pending deliveries and its earliest, one probe each
        (SELECT d.webhook_id, d.next_attempt_at FROM webhook_deliveries d WHERE d.state = 'pending' ORDER BY d.webhook_id, d.next_attempt_at LIMIT 1)
        UNION ALL
        SELECT x.webhook_id, x.next_attempt_at FROM pending_hooks p CROSS JOIN LATERAL (
          SELECT d.webhook_id, d.next_attempt_at FROM webhook_deliveries d WHERE d.state = 'pending' AND d.webhook_id > p.webhook_id
          ORDER BY d.webhook_id, d.next_attempt_at LIMIT 1
        ) x
      ), hooks AS MATERIALIZED (
        SELECT w.id, w.organization_id, coalesce(l.n, 0) AS n, coalesce(o.n, 0) AS org_n
        FROM pending_hooks p JOIN webhooks w ON w.id = p.webhook_id
        LEFT JOIN load l ON l.webhook_id = w.id LEFT JOIN org_load o ON o.organization_id = w.organization_id
        WHERE p.next_attempt_at <= now() AND w.enabled AND (coalesce(l.n, 0) < $5::int OR $4::int > $8::int)
      ), candidates AS (
        SELECT w.organization_id, coalesce(l.n, 0) AS n, coalesce(o.n, 0) AS org_n, true AS lost, d.* FROM (
          SELECT d.webhook_id, d.position, d.seq, d.event_seq, d.next_attempt_at FROM webhook_deliveries d
          WHERE d.state = 'leased' AND d.next_attempt_at <= now() AND EXISTS (SELECT 1 FROM webhooks x WHERE x.id = d.webhook_id AND x.enabled)
          ORDER BY d.next_attempt_at
          LIMIT $4::int
          FOR UPDATE OF d SKIP LOCKED
        ) d JOIN webhooks w ON w.id = d.webhook_id
        LEFT JOIN load l ON l.webhook_id = w.id LEFT JOIN org_load o ON o.organization_id = w.organization_id
        UNION ALL
        SELECT h.organization_id, h.n, h.org_n, false, d.* FROM hooks h CROSS JOIN LATERAL (
          SELECT d.webhook_id, d.position, d.seq, d.event_seq, d.next_attempt_at FROM webhook_deliveries d
          WHERE d.webhook_id = h.id AND d.state = 'pending' AND d.next_attempt_at <= now()
            AND (d.contact_id IS NULL OR (NOT EXISTS (
              SELECT 1 FROM webhook_deliveries p
              WHERE p.webhook_id = d.webhook_id AND p.contact_id = d.contact_id AND p.state IN ('pending', 'leased')
                AND (p.position, p.seq) < (d.position, d.seq))
              -- a hashed subplan, as in the fan-out: the lease records' contacts read once per statement
              AND (d.webhook_id, d.contact_id) NOT IN (SELECT webhook_id, contact_id FROM held)))
          ORDER BY d.next_attempt_at
          -- what the webhook may take, and no more than its part of the free slots: rows locked are bounded by them, not by the webhooks
          LIMIT least(greatest($5::int - h.n, $4::int - $8::int), ceil($4::numeric / (SELECT count(*) FROM hooks))::int)
          FOR UPDATE OF d SKIP LOCKED
        ) d
      ), by_webhook AS (
        SELECT c.*, c.n + row_number() OVER (PARTITION BY c.webhook_id ORDER BY c.lost DESC, c.next_attempt_at) AS webhook_load
        FROM candidates c
      ), by_organization AS (
        SELECT b.*, b.org_n + row_number() OVER (PARTITION BY b.organization_id ORDER BY b.webhook_load, b.lost DESC, b.next_attempt_at) AS organization_load
        FROM by_webhook b
      ), ranked AS (
        SELECT b.*, row_number() OVER (ORDER BY b.webhook_load > $5::int, b.organization_load, b.lost DESC, b.next_attempt_at) AS rank
        FROM by_organization b
      ), taken AS (
        SELECT webhook_id, position, seq, event_seq FROM ranked
        WHERE rank <= $4::int AND (webhook_load <= $5::int OR rank <= $4::int - $8::int)
      )
      UPDATE webhook_deliveries d SET
        attempts = CASE WHEN d.lease_token IS NULL THEN d.attempts ELSE d.attempts || jsonb_build_array(jsonb_build_object(
          'at', ${isoTimeSql('d.leased_at')}, 'status', NULL,
          'error', 'no answer recorded: the instance making the attempt stopped')) END,
        attempt_count = d.attempt_count + 1, state = 'leased',
        lease_token = $2::text, leased_at = now(), leased_by = $1::text,
        next_attempt_at = now() + make_interval(secs => $3::int)
      FROM taken
      JOIN webhooks w ON w.id = taken.webhook_id
      LEFT JOIN events e ON e.seq = taken.event_seq
      WHERE d.webhook_id = taken.webhook_id AND d.position = taken.position AND d.seq = taken.seq
      RETURNING d.position::text AS position, d.seq::text AS seq, d.webhook_id AS "webhookId", d.attempt_count AS "attemptCount", w.url, w.secret,
        ${publicEventIdPart('e.id')} AS "eventId", e.body`,
  columns: ['position', 'seq', 'webhookId', 'attemptCount', 'url', 'secret', 'eventId', 'body'],
  sample: () => ['warm-up', 'warm-up', 30, 0, 1, [], [], 0],
});

/**
 * Records a batch of attempts in one statement. Arrays, one element per attempt: the delivery's
 * key ($1 webhook ids, $2 positions, $3 seqs), $4 lease tokens, $5 states (pending: a retry after
 * $6 ms; delivered; failed), $7 when the attempt began, $8 HTTP status, $9 error, $10 whether it
 * was a first attempt under a fan-out lease record (true) or under a delivery row's lease (false).
 * - First attempts: their delivery rows are inserted now, with the outcome (attempt 1), where the
 *   lease record (webhook, token) is still there (one taken over is the taker's to record); the
 *   record's count of events without a row goes down by the batch's, and the record goes when
 *   none is left (a record is updated or deleted, once per batch). Each is recorded at most once (a
 *   first attempt appears in one batch); its row is new (the record names events with no row).
 * - Other attempts: each row is updated only where its lease ($4) is still the one it was taken
 *   with (a lease taken over is the taker's to record), each at most once.
 * A delivered attempt also ends its webhook's failing streak (failing_since), in the same statement:
 * the common case, a webhook that is not failing, writes nothing there. Returns how many were
 * recorded (one row: not a row per attempt to send and parse).
 */
export const WEBHOOK_COMPLETE = defineStatement<{ recorded: number }>({
  name: 'webhooks.complete',
  text: `WITH r AS (
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::int[], $9::text[], $10::boolean[])
          AS r(webhook_id, position, seq, lease_token, state, delay_ms, at, status, error, fresh)
      ), done AS (
        UPDATE webhook_deliveries d SET
          state = r.state,
          next_attempt_at = CASE WHEN r.state = 'pending' THEN now() + make_interval(secs => r.delay_ms / 1000.0) ELSE NULL END,
          attempts = d.attempts || jsonb_build_array(jsonb_build_object('at', r.at, 'status', r.status, 'error', r.error)),
          lease_token = NULL, leased_at = NULL
        FROM r
        WHERE NOT r.fresh AND d.webhook_id = r.webhook_id AND d.position = r.position AND d.seq = r.seq AND d.state = 'leased' AND d.lease_token = r.lease_token
        RETURNING d.webhook_id, r.state
      ), n AS (
        SELECT webhook_id, lease_token, count(*)::int AS n FROM r WHERE r.fresh GROUP BY webhook_id, lease_token
      ), kept AS (
        UPDATE webhook_leases l SET open = l.open - n.n FROM n
        WHERE l.webhook_id = n.webhook_id AND l.token = n.lease_token AND l.open > n.n
        RETURNING l.webhook_id, l.token, l.leased_at, l.leased_by
      ), ended AS (
        DELETE FROM webhook_leases l USING n
        WHERE l.webhook_id = n.webhook_id AND l.token = n.lease_token AND l.open <= n.n
        RETURNING l.webhook_id, l.token, l.leased_at, l.leased_by
      ), ins AS (
        INSERT INTO webhook_deliveries (webhook_id, event_seq, event_id, type, contact_id, position, seq, state,
          attempt_count, attempts, next_attempt_at, leased_at, leased_by)
        SELECT r.webhook_id, r.seq, e.id, e.type, e.contact_id, r.position, r.seq, r.state,
          1, jsonb_build_array(jsonb_build_object('at', r.at, 'status', r.status, 'error', r.error)),
          CASE WHEN r.state = 'pending' THEN now() + make_interval(secs => r.delay_ms / 1000.0) END, l.leased_at, l.leased_by
        FROM r
        JOIN (SELECT * FROM kept UNION ALL SELECT * FROM ended) l ON l.webhook_id = r.webhook_id AND l.token = r.lease_token
        JOIN events e ON e.seq = r.seq
        WHERE r.fresh
        RETURNING webhook_id, state
      ), healthy AS (
        UPDATE webhooks SET failing_since = NULL
        WHERE id IN (SELECT webhook_id FROM done WHERE state = 'delivered' UNION ALL SELECT webhook_id FROM ins WHERE state = 'delivered')
          AND failing_since IS NOT NULL
      )
      SELECT ((SELECT count(*) FROM done) + (SELECT count(*) FROM ins))::int AS recorded`,
  columns: ['recorded'],
  sample: () => [[], [], [], [], [], [], [], [], [], []],
  // Planning it costs half of running it for 100 outcomes; every table is reached by key from the arrays.
  plan: 'generic',
});

export const WEBHOOKS_STATEMENTS = [WEBHOOK_FAN_OUT_HORIZONS, WEBHOOK_FAN_OUT_HORIZONS_WAIT, WEBHOOK_FAN_OUT, WEBHOOK_TAKE_OVER, WEBHOOK_CLAIM, WEBHOOK_COMPLETE];

/** A webhook as the API shows it (WebhookView, with `createdAt` still a Date). */
export interface WebhookViewRow {
  id: string;
  url: string;
  types: string[];
  description: string | null;
  enabled: boolean;
  createdAt: Date;
}

/**
 * Organization $1's row, locked until the transaction ends: webhook creations of one
 * organization are serialized, so the limit of 20 holds under concurrent POSTs.
 */
export const WEBHOOK_LOCK_ORGANIZATION = defineStatement<{ id: string }>({
  name: 'webhooks.lock-organization',
  text: `SELECT id FROM organizations WHERE id = $1 FOR UPDATE`,
  columns: ['id'],
  sample: (organizationId) => [organizationId],
});

/** How many webhooks organization $1 has. */
export const WEBHOOK_COUNT = defineStatement<{ count: number }>({
  name: 'webhooks.count',
  text: `SELECT count(*)::int AS count FROM webhooks WHERE organization_id = $1`,
  columns: ['count'],
  sample: (organizationId) => [organizationId],
});

/**
 * Where organization $1's feed ends now (bigint as text): its horizon (the SQL function
 * event_horizon: waits for the organization's commits in progress, holds no lock afterwards).
 */
export const WEBHOOK_FEED_END = defineStatement<{ horizon: string }>({
  name: 'webhooks.feed-end',
  text: `SELECT event_horizon($1)::text AS horizon`,
  columns: ['horizon'],
  sample: (organizationId) => [organizationId],
});

/** A new webhook of organization $1: url $2, types $3, description $4, secret $5, reading the feed after ($6 position, $7 seq). */
export const WEBHOOK_INSERT = defineStatement<WebhookViewRow>({
  name: 'webhooks.insert',
  text: `INSERT INTO webhooks (organization_id, url, types, description, secret, feed_position, feed_seq)
      VALUES ($1, $2, $3::text[], $4, $5, $6::bigint, $7::bigint)
      RETURNING id, url, types, description, enabled, created_at AS "createdAt"`,
  columns: ['id', 'url', 'types', 'description', 'enabled', 'createdAt'],
  sample: (organizationId) => [organizationId, 'https://sample.test/', [], null, 'sample', '0', '0'],
});

/** A row of WEBHOOK_DELIVERIES (position and seq: bigint, which pg reads as text). */
export interface DeliveryLogRow {
  event_id: string;
  type: string;
  state: string;
  attempts: Array<{ at: string; status: number | null; error: string | null }>;
  next_attempt_at: Date | null;
  position: string;
  seq: string;
}

/**
 * Up to $4 deliveries of webhook $1 before ($2 position, $3 seq), newest first: its rows (a row
 * 'leased', a retry being made, shows as pending) and the events of its fan-out lease records
 * whose first attempt has not ended (no row yet: pending, no attempt, next attempt the lease's end).
 */
export const WEBHOOK_DELIVERIES = defineStatement<DeliveryLogRow>({
  name: 'webhooks.deliveries',
  text: `(SELECT event_id::text, type, CASE WHEN state = 'leased' THEN 'pending' ELSE state END AS state, attempts, next_attempt_at, position, seq
       FROM webhook_deliveries
       WHERE webhook_id = $1 AND (position, seq) < ($2::bigint, $3::bigint)
       ORDER BY position DESC, seq DESC
       LIMIT $4::int)
      UNION ALL
      SELECT e.id::text, e.type, 'pending', '[]'::jsonb, l.expires_at, u.position, u.seq
      FROM webhook_leases l CROSS JOIN LATERAL unnest(l.positions, l.seqs) AS u(position, seq)
      JOIN events e ON e.seq = u.seq
      WHERE l.webhook_id = $1 AND (u.position, u.seq) < ($2::bigint, $3::bigint)
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = l.webhook_id AND d.position = u.position AND d.seq = u.seq)
      ORDER BY position DESC, seq DESC
      LIMIT $4::int`,
  columns: ['event_id', 'type', 'state', 'attempts', 'next_attempt_at', 'position', 'seq'],
  sample: () => ['', '0', '0', 1],
});

/** Disables the enabled webhooks $1 whose receiver answered 410 Gone; their ids. */
export const WEBHOOK_DISABLE_GONE = defineStatement<{ id: string }>({
  name: 'webhooks.disable-gone',
  text: `UPDATE webhooks SET enabled = false, disabled_reason = 'the receiver answered 410 Gone'
      WHERE id = ANY($1::text[]) AND enabled RETURNING id`,
  columns: ['id'],
  sample: () => [[]],
});

/** Starts the failing streak (database clock) of the webhooks $1 that have none. */
export const WEBHOOK_MARK_FAILING = defineStatement<{ marked: number }>({
  name: 'webhooks.mark-failing',
  text: `WITH marked AS (
        UPDATE webhooks SET failing_since = now() WHERE id = ANY($1::text[]) AND failing_since IS NULL RETURNING 1
      )
      SELECT count(*)::int AS marked FROM marked`,
  columns: ['marked'],
  sample: () => [[]],
});

/** Disables the enabled webhooks $1 failing for at least $2 seconds; their ids. */
export const WEBHOOK_DISABLE_FAILING = defineStatement<{ id: string }>({
  name: 'webhooks.disable-failing',
  text: `UPDATE webhooks SET enabled = false, disabled_reason = 'no successful delivery for ' || $2::int || ' seconds'
      WHERE id = ANY($1::text[]) AND enabled AND failing_since <= now() - make_interval(secs => $2::int)
      RETURNING id`,
  columns: ['id'],
  sample: () => [[], 1],
});

/**
 * Seconds since the commit of the oldest event not yet delivered for an enabled webhook (null when
 * none): its delivery pending or leased, or its first attempt under way in a fan-out lease record
 * (whose events are in commit order: the first is its oldest).
 */
export const WEBHOOK_OLDEST_PENDING_AGE = defineStatement<{ age: number | null }>({
  name: 'webhooks.oldest-pending-age',
  text: `SELECT extract(epoch FROM now() - min(committed_at))::float8 AS age FROM (
        SELECT min(c.committed_at) AS committed_at
        FROM webhook_deliveries d
        JOIN webhooks w ON w.id = d.webhook_id AND w.enabled
        JOIN event_commits c ON c.organization_id = w.organization_id AND c.position = d.position
        WHERE d.state IN ('pending', 'leased')
        UNION ALL
        SELECT min(c.committed_at)
        FROM webhook_leases l
        JOIN webhooks w ON w.id = l.webhook_id AND w.enabled
        JOIN event_commits c ON c.organization_id = w.organization_id AND c.position = l.positions[1]
      ) oldest`,
  columns: ['age'],
  sample: () => [],
});

/** The statements of the webhooks' endpoints, health and metrics (the delivery's are WEBHOOKS_STATEMENTS). */
export const WEBHOOKS_API_STATEMENTS = [
  WEBHOOK_LOCK_ORGANIZATION,
  WEBHOOK_COUNT,
  WEBHOOK_FEED_END,
  WEBHOOK_INSERT,
  WEBHOOK_DELIVERIES,
  WEBHOOK_DISABLE_GONE,
  WEBHOOK_MARK_FAILING,
  WEBHOOK_DISABLE_FAILING,
  WEBHOOK_OLDEST_PENDING_AGE,
];
