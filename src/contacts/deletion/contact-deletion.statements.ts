import { defineStatement } from '../../database/statements';

/** Deletes contact $1 of organization $2; its memberships go by the foreign key's cascade. */
export const DELETE_CONTACT = defineStatement<{ id: string }>({
  name: 'contacts.delete',
  text: `DELETE FROM contacts WHERE id = $1 AND organization_id = $2 RETURNING id`,
  columns: ['id'],
  sample: (organizationId) => ['', organizationId],
});

export const CONTACT_DELETION_STATEMENTS = [DELETE_CONTACT];
