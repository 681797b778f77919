import { defineStatement } from '../database/statements';

/** A row of EVENTS_OF_ADDRESS_FOR_UPDATE: an event to redact. */
export interface EventToRedactRow {
  /** bigint as text: the event's key. */
  seq: string;
  /** Its stored text (events.body). */
  body: string;
}

/**
 * Erasure (docs/api.md, "Erasing a contact"; contract sections 13 and 16), first of two statements
 * run by EventsRepository.redactEventsOf: up to $3 events of organization $1 that still hold the
 * normalized address $2, their texts, locked (`FOR UPDATE`) until the erasure's transaction ends. The
 * service redacts each text (redactEventText, event-redaction.ts) and writes them back with
 * WRITE_REDACTED_EVENTS, which clears their address: the next round (same transaction) reads the
 * next ones, until a round reads fewer than $3 (EVENT_REDACTION_CHUNK: an address with tens of
 * thousands of events is never one statement of tens of megabytes, nor one past the statement
 * timeout, which could never succeed).
 *
 * Found through the index on (organization_id, email); never a scan of the organization's events.
 * The events of the erased contacts are among them: every event that names a contact (contact_id)
 * also carries that contact's normalized address, and a contact's address never changes
 * (contact-events.ts, list-memberships, contact deletion, suppressions; `contact.erased` names no
 * address and has nothing to redact). An event already redacted has `email` NULL: it is neither
 * read, touched nor counted again.
 */
export const EVENTS_OF_ADDRESS_FOR_UPDATE = defineStatement<EventToRedactRow>({
  name: 'events.of-address-for-update',
  text: `SELECT seq::text AS seq, body FROM events
      WHERE organization_id = $1 AND email = $2
      LIMIT $3
      FOR UPDATE`,
  columns: ['seq', 'body'],
  sample: (organizationId) => [organizationId, '', 1],
});

/**
 * Erasure, second statement: writes the redacted texts $3 of the events $2 (seq, as the first
 * statement read them, locked by it) of organization $1 and clears their address (`email` NULL),
 * in one set-based statement per round (unnest of the two arrays, each event by its key).
 * `redacted`: how many events it wrote (summed over the rounds: the answer's `eventsRedacted`).
 *
 * The text is the service's (redactEventText: JSON.stringify's bytes, as renderEvent writes every
 * event), not rendered again by PostgreSQL: jsonb's text would differ from every other event's
 * (spacing, key order, numbers in full; test/events/event-json-sql.e2e-spec.ts).
 */
export const WRITE_REDACTED_EVENTS = defineStatement<{ redacted: number }>({
  name: 'events.write-redacted',
  text: `WITH redacted AS (
        UPDATE events e SET email = NULL, body = r.body
        FROM unnest($2::bigint[], $3::text[]) AS r(seq, body)
        WHERE e.seq = r.seq AND e.organization_id = $1
        RETURNING 1
      )
      SELECT count(*)::int AS redacted FROM redacted`,
  columns: ['redacted'],
  sample: (organizationId) => [organizationId, [], []],
});

export const EVENT_REDACTION_STATEMENTS = [EVENTS_OF_ADDRESS_FOR_UPDATE, WRITE_REDACTED_EVENTS];
