import { defineStatement } from '../../src/database/statements';

/** The organization's list $1, archived or not (a foreign id finds nothing). */
export const FIND_LIST = defineStatement<{ id: string }>({
  name: 'list-copies.find-list',
  text: `SELECT id FROM lists WHERE id = $1 AND organization_id = $2`,
  columns: ['id'],
  sample: (organizationId) => ['no-such-list', organizationId],
});

/** A new list named $2: its id and created_at come from the database defaults. */
export const CREATE_LIST = defineStatement<{ id: string; name: string }>({
  name: 'list-copies.create-list',
  text: `INSERT INTO lists (organization_id, name) VALUES ($1, $2) RETURNING id, name`,
  columns: ['id', 'name'],
  sample: (organizationId) => [organizationId, 'sample'],
});

/** Every member of list $1 joins list $2, set-based: one statement whatever the size. */
export const COPY_MEMBERS = defineStatement<{ copied: number }>({
  name: 'list-copies.copy-members',
  text: `WITH copied AS (
      INSERT INTO list_memberships (contact_id, list_id, email)
      SELECT contact_id, $2, email FROM list_memberships WHERE list_id = $1
      RETURNING 1)
    SELECT count(*)::int AS copied FROM copied`,
  columns: ['copied'],
  sample: () => ['no-such-list', 'no-such-list'],
});

export const LIST_COPIES_STATEMENTS = [FIND_LIST, CREATE_LIST, COPY_MEMBERS];
