import { defineStatement } from '../database/statements';
import { isoTimeSql, publicEventIdSql } from '../events/events.statements';

/**
 * The two statements of every webhook attempt, as registered statements on the pg pool (the
 * project's form of raw SQL, docs/extending.md): both are set-based and the claim needs
 * `FOR UPDATE SKIP LOCKED`, which Prisma Client cannot express. Moving them from Prisma's
 * `$queryRaw` did not measurably change the service's CPU per delivery (0.32 ms before, 0.33–0.36
 * after, loaded machine; docs/performance.md, "Webhooks"). The ids and times come back as the text
 * the receiver sees (no Date or UUID handling per row).
 */

/** A row of WEBHOOK_CLAIM: one delivery taken for one attempt, with what the attempt needs. */
export interface ClaimRow {
  /** bigint as text. */
  id: string;
  webhookId: string;
  /** Attempts made so far, this one included. */
  attemptCount: number;
  url: string;
  secret: string;
  /** `evt_` + 32 hex digits; null when retention removed the event. */
  eventId: string | null;
  type: string | null;
  /** As JavaScript's toISOString: UTC, milliseconds, `Z`. */
  occurredAt: string | null;
  requestId: string | null;
  /** jsonb, parsed by the pg driver. */
  data: unknown;
}

/**
 * Takes up to $4 due deliveries for one attempt each (SKIP LOCKED: two instances never take the
 * same one), for owner $1 with lease token $2. Taking one pushes its next_attempt_at $3 seconds
 * ahead: that is its lease. An instance that dies mid-attempt leaves it due again when the lease
 * ends, and the next taker logs the lost attempt. A delivery waits while an earlier event of the
 * same contact is pending for the same webhook (per-contact commit order).
 */
export const WEBHOOK_CLAIM = defineStatement<ClaimRow>({
  name: 'webhooks.claim',
  text: `WITH due AS (
        SELECT d.id, d.event_seq, d.webhook_id FROM webhook_deliveries d
        JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.state = 'pending' AND d.next_attempt_at <= now() AND w.enabled
          AND (d.contact_id IS NULL OR NOT EXISTS (
            SELECT 1 FROM webhook_deliveries p
            WHERE p.webhook_id = d.webhook_id AND p.contact_id = d.contact_id AND p.state = 'pending'
              AND (p.position, p.seq) < (d.position, d.seq)))
        ORDER BY d.next_attempt_at
        LIMIT $4::int
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries d SET
        attempts = CASE WHEN d.lease_token IS NULL THEN d.attempts ELSE d.attempts || jsonb_build_array(jsonb_build_object(
          'at', ${isoTimeSql('d.leased_at')}, 'status', NULL,
          'error', 'no answer recorded: the instance making the attempt stopped')) END,
        attempt_count = d.attempt_count + 1,
        lease_token = $2::text, leased_at = now(), leased_by = $1::text,
        next_attempt_at = now() + make_interval(secs => $3::int)
      FROM due
      JOIN webhooks w ON w.id = due.webhook_id
      LEFT JOIN events e ON e.seq = due.event_seq
      WHERE d.id = due.id
      RETURNING d.id::text AS id, d.webhook_id AS "webhookId", d.attempt_count AS "attemptCount", w.url, w.secret,
        ${publicEventIdSql('e.id')} AS "eventId", e.type,
        ${isoTimeSql('e.occurred_at')} AS "occurredAt",
        e.request_id AS "requestId", e.data`,
  columns: ['id', 'webhookId', 'attemptCount', 'url', 'secret', 'eventId', 'type', 'occurredAt', 'requestId', 'data'],
  sample: () => ['warm-up', 'warm-up', 30, 0],
});

/**
 * Records a batch of attempts in one statement, each only where its lease ($2) is still the one
 * it was taken with (a lease taken over is the taker's to record), each at most once (a delivery
 * id appears once per batch). Arrays, one element per attempt: $1 delivery ids, $2 lease tokens,
 * $3 states (pending: a retry after $4 ms; delivered; failed), $5 when the attempt began, $6 HTTP
 * status, $7 error. Returns the ids recorded.
 */
export const WEBHOOK_COMPLETE = defineStatement<{ id: string }>({
  name: 'webhooks.complete',
  text: `UPDATE webhook_deliveries d SET
        state = r.state,
        next_attempt_at = CASE WHEN r.state = 'pending' THEN now() + make_interval(secs => r.delay_ms / 1000.0) ELSE NULL END,
        attempts = d.attempts || jsonb_build_array(jsonb_build_object('at', r.at, 'status', r.status, 'error', r.error)),
        lease_token = NULL, leased_at = NULL
      FROM unnest($1::bigint[], $2::text[], $3::text[], $4::float8[], $5::text[], $6::int[], $7::text[])
        AS r(id, lease_token, state, delay_ms, at, status, error)
      WHERE d.id = r.id AND d.lease_token = r.lease_token
      RETURNING d.id::text AS id`,
  columns: ['id'],
  sample: () => [[], [], [], [], [], [], []],
});

export const WEBHOOKS_STATEMENTS = [WEBHOOK_CLAIM, WEBHOOK_COMPLETE];
