import type { SqlParams } from '../database/sql-params';
import type { NewEvent } from './event-types';

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
