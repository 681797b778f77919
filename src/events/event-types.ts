/**
 * The change events of contract section 14 (and the fine points of section 16): their types and
 * the shape of each one's `data`. Every write path builds its events with these types and writes
 * them in the transaction of the change (EventsRepository.record, or the contacts write statement);
 * docs/events.md describes them for callers.
 */
import { randomUUID } from 'node:crypto';
import type { CustomFieldView } from '../custom-fields/dto/fields-response.dto';
import type { ListView } from '../lists/list-view';
import type { SuppressionReason } from '../generated/prisma/enums';

/** The 12 event types, in the contract's order (import.finished: section 17). */
export const EVENT_TYPES = [
  'contact.created',
  'contact.updated',
  'contact.list_removed',
  'contact.deleted',
  'contact.erased',
  'suppression.created',
  'suppression.deleted',
  'list.created',
  'list.updated',
  'field.created',
  'field.updated',
  'import.finished',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** A contact as GET /api/v2/contacts/{email} shows it (contactJsonPart in src/contacts/contacts.statements.ts renders it). */
export interface EventContact {
  id: string;
  email: string;
  listIds: string[];
  fields: Record<string, unknown>;
  suppressed: { reason: SuppressionReason } | null;
  createdAt: string;
  updatedAt: string;
}

/** `data` of each type. */
export interface EventDataByType {
  /** The contact after the change. */
  'contact.created': { contact: EventContact };
  /** The contact after the change; `changedFields`/`addedListIds` as the POST's result shows them. */
  'contact.updated': { contact: EventContact; changedFields: string[]; addedListIds: string[] };
  /** The contact after the removal from list `listId`. */
  'contact.list_removed': { contact: EventContact; listId: string };
  /** The contact as it was before the deletion. */
  'contact.deleted': { contact: EventContact };
  /** Only the erased contact's id: the address is stored nowhere. */
  'contact.erased': { contact: { id: string } };
  /** `email` is null once the address is erased (the event stays, redacted). */
  'suppression.created': { suppression: { email: string | null; reason: SuppressionReason } };
  /** The lifted suppression (its reason); `email` null when the address is erased. */
  'suppression.deleted': { suppression: { email: string | null; reason: SuppressionReason } };
  'list.created': { list: ListView };
  'list.updated': { list: ListView };
  /** The field as GET /api/v2/fields shows it. */
  'field.created': { field: CustomFieldView };
  'field.updated': { field: CustomFieldView };
  /** The import as GET /api/v2/imports/{id} shows it, once it ended. */
  'import.finished': { import: Record<string, unknown> };
}

export type EventData<T extends EventType = EventType> = EventDataByType[T];

/**
 * An event to write, in the transaction of its change. `requestId` is the request's X-Request-Id
 * (null for the admin command line); `contactId` and `email` (the normalized address) are set on
 * contact and suppression events: per-contact webhook order finds events by the contact, erasure by
 * the address alone, so an event with a `contactId` carries that contact's `email` too.
 */
export type NewEvent = {
  [T in EventType]: {
    organizationId: string;
    type: T;
    requestId?: string | null;
    contactId?: string | null;
    email?: string | null;
    data: EventDataByType[T];
  };
}[EventType];

/** The public id of an event: `evt_` + its UUID's 32 hex digits. */
export function publicEventId(uuid: string): string {
  // A UUID's text is 8-4-4-4-12 hex digits: the dashes are at 8, 13, 18 and 23 (no regex per event).
  return `evt_${uuid.slice(0, 8)}${uuid.slice(9, 13)}${uuid.slice(14, 18)}${uuid.slice(19, 23)}${uuid.slice(24)}`;
}

/**
 * An event's JSON text as the feed shows it and a webhook receives it (key order id, type,
 * occurredAt, requestId, data): rendered once, when the event is written, and stored as is
 * (events.body), so that reading a page or sending an attempt is a concatenation of stored texts,
 * with no JSON parsed or rendered per read (docs/events.md, "An event").
 */
export function renderEvent(uuid: string, occurredAt: string, requestId: string | null, type: EventType, data: EventData): string {
  return `${eventHead(uuid, occurredAt, requestId, type)}${JSON.stringify(data)}}`;
}

/**
 * An event's text up to its `data`: byte for byte what JSON.stringify({ id, type, occurredAt,
 * requestId, data }) writes before the data. The id (`evt_` + hex), the type (EVENT_TYPES) and the
 * time (toISOString) need no escaping. One object less per event.
 */
function eventHead(uuid: string, occurredAt: string, requestId: string | null, type: EventType): string {
  return `{"id":"${publicEventId(uuid)}","type":"${type}","occurredAt":"${occurredAt}","requestId":${requestId === null ? 'null' : JSON.stringify(requestId)},"data":`;
}

/** The types whose `data` starts with the contact as GET /api/v2/contacts/{email} shows it. */
export type ContactEventType = 'contact.created' | 'contact.updated' | 'contact.list_removed' | 'contact.deleted';

/**
 * An event whose `data.contact` is JSON text the writing statement renders (eventsInsertPart with
 * a relation of contact texts, events.statements.ts): the event without `data.contact`, and the
 * contact it is about.
 */
export type NewEventAroundContact = {
  [T in ContactEventType]: {
    organizationId: string;
    type: T;
    contactId: string;
    email: string;
    data: Omit<EventDataByType[T], 'contact'>;
  };
}[ContactEventType];

/**
 * The text of an event around its `data.contact`: `head + contact + tail` is what renderEvent
 * writes for the event with `data` = { contact, ...rest } (contact first), `contact` being the
 * contact's JSON text.
 */
export function renderEventAroundContact(
  uuid: string,
  occurredAt: string,
  requestId: string | null,
  type: ContactEventType,
  rest: object,
): { head: string; tail: string } {
  const others = JSON.stringify(rest);
  return {
    head: `${eventHead(uuid, occurredAt, requestId, type)}{"contact":`,
    // `{}` when nothing follows the contact; else its members after a comma, without their braces.
    tail: `${others === '{}' ? '' : `,${others.slice(1, -1)}`}}}`,
  };
}

/**
 * A contact event whose `data.contact` is the contact's JSON text as a statement of the same
 * transaction rendered it (contactJsonPart, read by contact-views.ts): stored as it came, never
 * parsed and written again, so its bytes are GET's.
 */
export type NewEventWithContactText = NewEventAroundContact & { requestId?: string | null; contactText: string };

/** An event to write: its data as values, or a contact event around its contact's JSON text. */
export type EventToWrite = NewEvent | NewEventWithContactText;

/**
 * A new event's id and stored text, made when it is written: a random v4 UUID made here (not a
 * column default), so that the text and the row's id agree. Every writer uses it, through
 * writeEvents (event-writes.ts).
 */
export function newEventText(event: EventToWrite, occurredAt: string, requestId: string | null): { id: string; body: string } {
  const id = randomUUID();
  if ('contactText' in event) {
    const { head, tail } = renderEventAroundContact(id, occurredAt, requestId, event.type, event.data);
    return { id, body: head + event.contactText + tail };
  }
  return { id, body: renderEvent(id, occurredAt, requestId, event.type, event.data) };
}

/** The UUID of a public event id (`evt_` + 32 hex digits), or undefined when it is not one. */
export function eventUuidOf(publicId: string): string | undefined {
  const match = /^evt_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(publicId);
  return match ? match.slice(1).join('-') : undefined;
}

/** An event as the feed (and a webhook delivery) shows it. */
export interface EventView {
  id: string;
  type: EventType;
  occurredAt: string;
  requestId: string | null;
  data: EventData;
}
