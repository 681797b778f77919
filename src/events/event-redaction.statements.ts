import { defineStatement } from '../database/statements';
import { eventJsonSql } from './events.statements';

/** The event `e`'s text with the address taken out of its `data` (`d.data`, jsonb). */
const REDACTED_BODY = eventJsonSql(
  'e',
  `d.data
      || CASE WHEN d.data ? 'contact' THEN jsonb_build_object('contact', jsonb_build_object('id', d.data #> '{contact,id}')) ELSE '{}'::jsonb END
      || CASE WHEN jsonb_typeof(d.data -> 'suppression') = 'object'
           THEN jsonb_build_object('suppression', (d.data -> 'suppression') || '{"email": null}'::jsonb) ELSE '{}'::jsonb END`,
);

/**
 * Erasure (docs/api.md, "Erasing a contact"; contract sections 13 and 16): every event of
 * organization $1 that is about the normalized address $2, or about one of the erased contacts,
 * keeps its place in the feed but loses the address: `events.email` becomes NULL, `data.contact` is
 * reduced to `{ id }` and `data.suppression.email` becomes null (the reason stays). `redacted`: how
 * many events were redacted (the answer's `eventsRedacted`). Run by EventsRepository.redactEventsOf.
 *
 * ONE set-based statement whatever the number of events, found through the index on
 * (organization_id, email); never a scan of the organization's events. The events of the erased
 * contacts are among them: every event that names a contact (contact_id) also carries that
 * contact's normalized address, and a contact's address never changes (contact-events.ts,
 * list-memberships, contact deletion, suppressions; `contact.erased` names no address and has
 * nothing to redact). An event already redacted (no address left) is neither touched nor counted
 * again. The stored text (events.body) is rendered again from the event's columns and its redacted
 * `data` (eventJsonSql, events.statements.ts; jsonb's spacing inside `data`, the same JSON).
 */
export const REDACT_EVENTS_OF_ADDRESS = defineStatement<{ redacted: number }>({
  name: 'events.redact-address',
  text: `WITH redacted AS (
        UPDATE events e SET
          email = NULL,
          body = (
            SELECT ${REDACTED_BODY}
            FROM (SELECT e.body::jsonb -> 'data' AS data) d
          )
        WHERE organization_id = $1
          AND email = $2
        RETURNING 1
      )
      SELECT count(*)::int AS redacted FROM redacted`,
  columns: ['redacted'],
  sample: (organizationId) => [organizationId, ''],
});

export const EVENT_REDACTION_STATEMENTS = [REDACT_EVENTS_OF_ADDRESS];
