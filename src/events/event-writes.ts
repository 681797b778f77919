import { runIn, type SqlClient } from '../database/statements';
import { newEventText, type NewEvent } from './event-types';
import { INSERT_EVENTS } from './events.statements';

/**
 * Writes the events of one organization's change in the caller's open transaction `tx`
 * (`Database.transaction`), so that they exist exactly when the change does: one statement
 * (INSERT_EVENTS), in the given order; none for no events. Each gets its id and stored text here
 * (newEventText), all made at `occurredAt` (the transaction's now() when the caller's rows carry it).
 */
export async function writeEvents(
  tx: SqlClient,
  organizationId: string,
  requestId: string | null,
  occurredAt: Date,
  events: readonly NewEvent[],
): Promise<void> {
  if (events.length === 0) return;
  await runIn(tx, INSERT_EVENTS, [organizationId, ...eventsValues(requestId, occurredAt, events)]);
}

/** The values of the events' INSERT after the organization (INSERT_EVENTS, eventsInsertPart), in order. */
export function eventsValues(requestId: string | null, occurredAt: Date, events: readonly NewEvent[]): unknown[] {
  const at = occurredAt.toISOString();
  const texts = events.map((event) => newEventText(event, at, requestId));
  return [
    requestId,
    at,
    texts.map((text) => text.id),
    events.map((event) => event.type),
    events.map((event) => event.contactId ?? null),
    events.map((event) => event.email ?? null),
    texts.map((text) => text.body),
  ];
}
