import type { Prisma } from '../generated/prisma/client';

/**
 * Erasure (docs/api.md, "Erasing a contact"; contract sections 13 and 16): every event of this
 * organization that is about the normalized `email`, or about one of the erased contacts, keeps
 * its place in the feed but loses the address: `events.email` becomes NULL, `data.contact` is
 * reduced to `{ id }` and `data.suppression.email` becomes null (the reason stays). Returns how
 * many events were redacted (the answer's `eventsRedacted`).
 *
 * ONE set-based statement whatever the number of events, found through the index on
 * (organization_id, email); never a scan of the organization's events. The events of the erased
 * contacts are among them: every event that names a contact (contact_id) also carries that
 * contact's normalized address, and a contact's address never changes (contact-events.ts,
 * list-memberships, contact deletion, suppressions; `contact.erased` names no address and has
 * nothing to redact). An event already redacted (no address left) is neither touched nor counted
 * again.
 */
export async function redactEventsOf(tx: Prisma.TransactionClient, organizationId: string, email: string): Promise<number> {
  return tx.$executeRaw`
    UPDATE events SET
      email = NULL,
      data = data
        || CASE WHEN data ? 'contact' THEN jsonb_build_object('contact', jsonb_build_object('id', data #> '{contact,id}')) ELSE '{}'::jsonb END
        || CASE WHEN jsonb_typeof(data -> 'suppression') = 'object'
             THEN jsonb_build_object('suppression', (data -> 'suppression') || '{"email": null}'::jsonb) ELSE '{}'::jsonb END
    WHERE organization_id = ${organizationId}
      AND email = ${email}`;
}
