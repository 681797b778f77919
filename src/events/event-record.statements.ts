import { defineStatement } from '../database/statements';

/**
 * The retention sweep (EventsRepository.deleteExpired), one statement in its own transaction: up
 * to $2 transactions' events committed more than $1 seconds ago, the webhook deliveries of those
 * commits, the commits themselves, and each organization's retention boundary (event_retention:
 * the last event deleted), so a cursor behind deleted events is always told (410). Rows another
 * sweeper holds are skipped.
 */
export const DELETE_EXPIRED_EVENTS = defineStatement<{ commits: number; events: number }>({
  name: 'events.delete-expired',
  text: `WITH doomed AS (
        SELECT organization_id, position, xid FROM event_commits
        WHERE committed_at < now() - make_interval(secs => $1::float8)
        ORDER BY committed_at
        LIMIT $2::int
        FOR UPDATE SKIP LOCKED
      ), gone_events AS (
        DELETE FROM events e USING doomed d
        WHERE e.organization_id = d.organization_id AND e.xid = d.xid
        RETURNING e.organization_id, d.position, e.seq
      ), gone_deliveries AS (
        -- A webhook's deliveries log of an event goes with the event (docs/events.md, "Retention").
        DELETE FROM webhook_deliveries wd USING doomed d, webhooks w
        WHERE w.organization_id = d.organization_id AND wd.webhook_id = w.id AND wd.position = d.position
      ), gone_commits AS (
        DELETE FROM event_commits c USING doomed d
        WHERE c.organization_id = d.organization_id AND c.position = d.position
        RETURNING 1
      ), last_gone AS (
        SELECT DISTINCT ON (organization_id) organization_id, position, seq
        FROM gone_events ORDER BY organization_id, position DESC, seq DESC
      ), marked AS (
        INSERT INTO event_retention AS r (organization_id, pruned_position, pruned_seq, pruned_at)
        SELECT organization_id, position, seq, now() FROM last_gone
        ON CONFLICT (organization_id) DO UPDATE
          SET pruned_position = EXCLUDED.pruned_position, pruned_seq = EXCLUDED.pruned_seq, pruned_at = EXCLUDED.pruned_at
          WHERE (EXCLUDED.pruned_position, EXCLUDED.pruned_seq) > (r.pruned_position, r.pruned_seq)
      )
      SELECT (SELECT count(*) FROM gone_commits)::int AS commits, (SELECT count(*) FROM gone_events)::int AS events`,
  columns: ['commits', 'events'],
  // Nothing is older than a century.
  sample: () => [36_500 * 86_400, 0],
});

export const EVENT_RECORD_STATEMENTS = [DELETE_EXPIRED_EVENTS];
