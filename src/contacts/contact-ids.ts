import { v7 as uuidv7 } from 'uuid';

/**
 * A new contact's id: a UUID of version 7 (RFC 9562), the time in milliseconds in its first 48
 * bits, then random bits. The contacts a pipeline creates get ids ascending with time, so the
 * inserts into contacts_pkey and list_memberships_pkey (contact_id, list_id), and the foreign-key
 * probes of the new memberships, land in the index pages just written at the right edge instead of
 * in one random leaf per key. Callers are promised no order: an id is still opaque text.
 */
export function newContactId(nowMs?: number): string {
  return nowMs === undefined ? uuidv7() : uuidv7({ msecs: nowMs });
}
