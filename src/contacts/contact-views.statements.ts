import { defineStatement } from '../database/statements';
import type { ContactRow } from './contacts.repository';
import { CONTACT_ROWS, STANDARD_COLUMNS } from './contacts.statements';

/**
 * The contacts of organization $1 with the normalized emails $2, as stored, with their list ids
 * and suppression (CONTACT_ROWS), inside the caller's transaction: what the change events of the
 * other write paths show (contact-views.ts).
 */
export const CONTACT_VIEWS = defineStatement<ContactRow>({
  name: 'contacts.views',
  text: CONTACT_ROWS,
  columns: ['id', 'email', ...STANDARD_COLUMNS, 'custom_fields', 'created_at', 'updated_at', 'list_ids', 'suppression_reason', 'list_added_at'],
  sample: (organizationId) => [organizationId, []],
});

export const CONTACT_VIEWS_STATEMENTS = [CONTACT_VIEWS];
