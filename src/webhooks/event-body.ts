import { publicEventId } from '../events/event-types';

/** The event as GET /api/v2/events shows it and as a webhook receives it (contract 14). */
export interface EventRow {
  /** `evt_` + 32 hex digits (publicEventId). */
  id: string;
  type: string;
  /** As JavaScript's toISOString. */
  occurredAt: string;
  requestId: string | null;
  data: unknown;
}

export { publicEventId };

export function eventBody(event: EventRow): string {
  return JSON.stringify({ id: event.id, type: event.type, occurredAt: event.occurredAt, requestId: event.requestId, data: event.data });
}
