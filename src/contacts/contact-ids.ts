import { randomUUID } from 'node:crypto';

/**
 * A new contact's id: a UUID of version 7 (RFC 9562), the time in milliseconds in its first 48
 * bits and 74 random bits after it (those of a randomUUID, whose variant bits it keeps). The
 * contacts a pipeline creates get ids ascending with time, so the inserts into contacts_pkey and
 * list_memberships_pkey (contact_id, list_id), and the foreign-key probes of the new memberships,
 * land in the index pages just written at the right edge instead of in one random leaf per key.
 * Callers are promised no order: an id is still opaque text.
 */
export function newContactId(nowMs: number = Date.now()): string {
  const time = nowMs.toString(16).padStart(12, '0');
  // randomUUID: xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; from index 15 on, its random bits and variant.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
