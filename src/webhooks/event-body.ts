import { publicEventId } from '../events/event-types';

/** The event as GET /api/v2/events shows it and as a webhook receives it (contract 14). */
export interface EventRow {
  id: string;
  type: string;
  occurredAt: Date;
  requestId: string | null;
  data: unknown;
}

export { publicEventId };

export function eventBody(event: EventRow): string {
  return JSON.stringify({ id: publicEventId(event.id), type: event.type, occurredAt: event.occurredAt.toISOString(), requestId: event.requestId, data: event.data });
}
