import { defineStatement } from '../database/statements';
import { contactJsonPart } from './contacts.statements';

/**
 * The contacts of organization $1 with the normalized emails $2, as JSON text (contactJsonPart),
 * inside the caller's transaction: what the change events of the other write paths show
 * (contact-views.ts). One probe of the (organization_id, email) key per email (LATERAL ... LIMIT 1).
 */
export const CONTACT_VIEWS = defineStatement<{ email: string; id: string; contact: string }>({
  name: 'contacts.views',
  text: `SELECT c.email, c.id, ${contactJsonPart('c')} AS contact
    FROM unnest($2::text[]) AS wanted(email)
    CROSS JOIN LATERAL (SELECT * FROM contacts WHERE organization_id = $1 AND email = wanted.email LIMIT 1) AS c`,
  columns: ['email', 'id', 'contact'],
  sample: (organizationId) => [organizationId, []],
});

export const CONTACT_VIEWS_STATEMENTS = [CONTACT_VIEWS];
