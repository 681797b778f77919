import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { runIn, type SqlClient } from '../database/statements';
import { redactEventText } from './event-redaction';
import { EVENTS_OF_ADDRESS_FOR_UPDATE, WRITE_REDACTED_EVENTS } from './event-redaction.statements';
import { DELETE_EXPIRED_EVENTS } from './event-record.statements';
import { writeEvents } from './event-writes';
import type { EventToWrite } from './event-types';

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
  constructor(private readonly database: Database) {}

  /**
   * Writes `events` in the caller's open transaction `tx`, in the given order (their `seq` follows
   * it): one statement (writeEvents) for the events of one organization and request, which is what
   * a change writes; one per run of them otherwise. Nothing to write, no statement.
   */
  async record(tx: SqlClient, events: readonly EventToWrite[]): Promise<void> {
    const at = new Date();
    for (let start = 0; start < events.length; ) {
      const { organizationId, requestId = null } = events[start];
      let end = start + 1;
      while (end < events.length && events[end].organizationId === organizationId && (events[end].requestId ?? null) === requestId) end++;
      await writeEvents(tx, organizationId, requestId, at, events.slice(start, end));
      start = end;
    }
  }

  /**
   * Deletes up to `chunk` transactions' events committed more than `retentionDays` ago, in one
   * set-based statement (DELETE_EXPIRED_EVENTS, its own transaction), and moves each
   * organization's retention boundary in the same statement. Returns what it deleted.
   */
  async deleteExpired(retentionDays: number, chunk: number): Promise<{ commits: number; events: number }> {
    const [row] = await this.database.run(DELETE_EXPIRED_EVENTS, [retentionDays * 86400, chunk]);
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
  async redactEventsOf(tx: SqlClient, organizationId: string, email: string, chunk = EVENT_REDACTION_CHUNK): Promise<number> {
    let redacted = 0;
    for (;;) {
      const events = await runIn(tx, EVENTS_OF_ADDRESS_FOR_UPDATE, [organizationId, email, chunk]);
      if (events.length === 0) return redacted;
      const [row] = await runIn(tx, WRITE_REDACTED_EVENTS, [
        organizationId,
        events.map((event) => event.seq),
        events.map((event) => redactEventText(event.body)),
      ]);
      redacted += row.redacted;
      if (events.length < chunk) return redacted;
    }
  }
}
