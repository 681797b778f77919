import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { runInPrisma } from '../database/statements';
import type { Prisma } from '../generated/prisma/client';
import { redactEventText } from './event-redaction';
import { EVENTS_OF_ADDRESS_FOR_UPDATE, WRITE_REDACTED_EVENTS } from './event-redaction.statements';
import { newEventText, type NewEvent } from './event-types';

/**
 * Events of one address redacted per round of erasure (EventsRepository.redactEventsOf): a few
 * megabytes of text each way per statement, so that each statement stays well inside
 * DB_STATEMENT_TIMEOUT_MS even on a loaded machine, while an address with many events still needs
 * few rounds.
 */
export const EVENT_REDACTION_CHUNK = 5000;

/**
 * The events' tables. Writing: `record` in the caller's transaction, so an event exists exactly
 * when its change does (the transactional outbox of contract section 14). The commit position that
 * orders the feed is taken at COMMIT by the database (a deferred trigger, docs/events.md), never
 * here: only at commit is the order in which changes become visible known. Reading the feed: EventsFeedRepository.
 */
@Injectable()
export class EventsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Writes `events` in the caller's open transaction `tx` (one statement, in the given order:
   * their `seq` follows it). Nothing to write, no statement.
   */
  async record(tx: Prisma.TransactionClient, events: readonly NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const at = new Date();
    await tx.event.createMany({ data: events.map((event) => toEventRow(event, at)) });
  }

  /**
   * Deletes up to `chunk` transactions' events committed more than `retentionDays` ago, in one
   * set-based statement (its own transaction), and moves each organization's retention boundary
   * (event_retention: the last event deleted) in the same statement, so a cursor behind deleted
   * events is always told (410). Rows another sweeper holds are skipped. Returns what it deleted.
   */
  async deleteExpired(retentionDays: number, chunk: number): Promise<{ commits: number; events: number }> {
    const [row] = await this.prisma.$queryRaw<Array<{ commits: number; events: number }>>`
      WITH doomed AS (
        SELECT organization_id, position, xid FROM event_commits
        WHERE committed_at < now() - make_interval(secs => ${retentionDays * 86400}::float8)
        ORDER BY committed_at
        LIMIT ${chunk}
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
      SELECT (SELECT count(*) FROM gone_commits)::int AS commits, (SELECT count(*) FROM gone_events)::int AS events`;
    return row;
  }

  /**
   * Erasure: takes the normalized `email` out of every event of the organization that holds it, in
   * the caller's transaction `tx`, EVENT_REDACTION_CHUNK events a round: reads their texts, locked
   * (EVENTS_OF_ADDRESS_FOR_UPDATE), redacts each here (redactEventText: what renderEvent writes for
   * the redacted event) and writes them back in one set-based statement (WRITE_REDACTED_EVENTS);
   * event-redaction.statements.ts. Two round trips for an address with fewer events than a chunk
   * (one when it has none left). Returns how many events were redacted.
   */
  async redactEventsOf(tx: Prisma.TransactionClient, organizationId: string, email: string, chunk = EVENT_REDACTION_CHUNK): Promise<number> {
    let redacted = 0;
    for (;;) {
      const events = await runInPrisma(tx, EVENTS_OF_ADDRESS_FOR_UPDATE, [organizationId, email, chunk]);
      if (events.length === 0) return redacted;
      const [row] = await runInPrisma(tx, WRITE_REDACTED_EVENTS, [
        organizationId,
        events.map((event) => event.seq),
        events.map((event) => redactEventText(event.body)),
      ]);
      redacted += row.redacted;
      if (events.length < chunk) return redacted;
    }
  }
}

/**
 * The row of a new event made at `at`, with its id and JSON text (newEventText); seq and xid come
 * from the database.
 */
export function toEventRow(event: NewEvent, at: Date): Prisma.EventCreateManyInput {
  const requestId = event.requestId ?? null;
  const { id, body } = newEventText(event, at.toISOString(), requestId);
  return {
    id,
    organizationId: event.organizationId,
    type: event.type,
    requestId,
    occurredAt: at,
    contactId: event.contactId ?? null,
    email: event.email ?? null,
    body,
  };
}
