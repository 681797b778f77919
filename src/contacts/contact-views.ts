import type { Prisma } from '../generated/prisma/client';
import { renderContact } from './contact-results';
import { readStoredContacts } from './contacts.repository';

/** A contact as GET /api/v2/contacts/{email} shows it: what contact events carry as `data.contact`. */
export type ContactView = ReturnType<typeof renderContact>;

/**
 * The contacts of these normalized emails as GET /contacts/{email} would show them, read inside
 * the caller's transaction: after its change for the events that describe the state after it,
 * before it for `contact.deleted`. Keyed by email; emails without a contact are absent.
 */
export async function readContactViews(
  tx: Prisma.TransactionClient,
  organizationId: string,
  emails: readonly string[],
): Promise<Map<string, ContactView>> {
  const stored = await readStoredContacts(tx, organizationId, emails);
  return new Map([...stored].map(([email, contact]) => [email, renderContact(contact)]));
}
