/** The event types of contract 14 a webhook may ask for: every type the events module writes. */
export { EVENT_TYPES as WEBHOOK_EVENT_TYPES } from '../events/event-types';
