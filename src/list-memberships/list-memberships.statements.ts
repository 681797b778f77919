import { defineStatement } from '../database/statements';

/**
 * The contacts of organization $1 with the normalized emails $2, each with whether it is a member
 * of list $3 and of how many lists: what a removal decides from (ListMembershipsRepository.removeFromList).
 */
export const MEMBERSHIPS_OF_EMAILS = defineStatement<{ id: string; email: string; member: boolean; lists: number }>({
  name: 'list-memberships.of-emails',
  text: `SELECT c.id, c.email,
             EXISTS (SELECT 1 FROM list_memberships m WHERE m.contact_id = c.id AND m.list_id = $3) AS member,
             (SELECT count(*)::int FROM list_memberships m WHERE m.contact_id = c.id) AS lists
      FROM contacts c
      WHERE c.organization_id = $1 AND c.email = ANY($2::text[])`,
  columns: ['id', 'email', 'member', 'lists'],
  sample: (organizationId) => [organizationId, [], ''],
});

/**
 * Takes the contacts $3 of organization $1 off list $2 and bumps their `updated_at` to the
 * transaction's now() (as the POST pipeline's updates write it: a change of listIds is a change).
 */
export const REMOVE_MEMBERSHIPS = defineStatement<{ removed: number }>({
  name: 'list-memberships.remove',
  text: `WITH gone AS (
        DELETE FROM list_memberships WHERE list_id = $2 AND contact_id = ANY($3::text[]) RETURNING 1
      ), bumped AS (
        UPDATE contacts SET updated_at = now() WHERE organization_id = $1 AND id = ANY($3::text[]) RETURNING 1
      )
      SELECT (SELECT count(*)::int FROM gone) AS removed`,
  columns: ['removed'],
  sample: (organizationId) => [organizationId, '', []],
});

export const LIST_MEMBERSHIPS_STATEMENTS = [MEMBERSHIPS_OF_EMAILS, REMOVE_MEMBERSHIPS];
