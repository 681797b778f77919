/** The event types of contract 14 a webhook may ask for. */
export const WEBHOOK_EVENT_TYPES = [
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
] as const;
