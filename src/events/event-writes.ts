import { runIn, type SqlClient } from '../database/statements';
import { randomUUID } from 'node:crypto';
import { type EventToWrite, newEventText, renderEventAroundContact, type NewEventAroundContact } from './event-types';
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
  events: readonly EventToWrite[],
): Promise<void> {
  if (events.length === 0) return;
  await runIn(tx, INSERT_EVENTS, [organizationId, ...eventsValues(requestId, occurredAt, events)]);
}

/** The values of the events' INSERT after the organization (INSERT_EVENTS, eventsInsertPart), in order. */
export function eventsValues(requestId: string | null, occurredAt: Date, events: readonly EventToWrite[]): unknown[] {
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

/**
 * The values of the events' INSERT after the organization when the statement renders each event's
 * `data.contact` (eventsInsertPart with `contactTexts`), in order: each event's text before and
 * after its contact (renderEventAroundContact), made here with its id.
 */
export function eventsAroundContactValues(requestId: string | null, occurredAt: Date, events: readonly NewEventAroundContact[]): unknown[] {
  const at = occurredAt.toISOString();
  const ids = events.map(() => randomUUID());
  const texts = events.map((event, i) => renderEventAroundContact(ids[i], at, requestId, event.type, event.data));
  return [
    requestId,
    at,
    ids,
    events.map((event) => event.type),
    events.map((event) => event.contactId),
    events.map((event) => event.email),
    texts.map((text) => text.head),
    texts.map((text) => text.tail),
  ];
}
