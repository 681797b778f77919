import { Prisma } from '../generated/prisma/client';
import { eventJsonSql } from './events.statements';

/** The event `e`'s text with the address taken out of its `data` (`d.data`, jsonb). */
const REDACTED_BODY = Prisma.raw(
  eventJsonSql(
    'e',
    `d.data
      || CASE WHEN d.data ? 'contact' THEN jsonb_build_object('contact', jsonb_build_object('id', d.data #> '{contact,id}')) ELSE '{}'::jsonb END
      || CASE WHEN jsonb_typeof(d.data -> 'suppression') = 'object'
           THEN jsonb_build_object('suppression', (d.data -> 'suppression') || '{"email": null}'::jsonb) ELSE '{}'::jsonb END`,
  ),
);

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
  // The stored text (events.body) is rendered again from the event's columns and its redacted
  // `data` (eventJsonSql, events.statements.ts; jsonb's spacing inside `data`, the same JSON).
  return tx.$executeRaw`
    UPDATE events e SET
      email = NULL,
      body = (
        SELECT ${REDACTED_BODY}
        FROM (SELECT e.body::jsonb -> 'data' AS data) d
      )
    WHERE organization_id = ${organizationId}
      AND email = ${email}`;
}
