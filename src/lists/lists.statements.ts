import { defineStatement } from '../database/statements';
import type { ListView } from './list-view';

/**
 * A new, unarchived list named $2 of organization $1. `created_at` is the insert's moment
 * (clock_timestamp), not the transaction's: lists made in one transaction (the demo data) keep
 * their order in GET /lists, which sorts by it.
 */
export const INSERT_LIST = defineStatement<ListView>({
  name: 'lists.insert',
  text: `INSERT INTO lists (organization_id, name, created_at) VALUES ($1, $2, clock_timestamp()) RETURNING id, name, archived`,
  columns: ['id', 'name', 'archived'],
  sample: (organizationId) => [organizationId, 'sample'],
});

/**
 * List $1 of organization $2, locked until the transaction ends. NO KEY: the lock the UPDATE takes
 * anyway, so membership inserts (their foreign-key check) never wait on it.
 */
export const LIST_FOR_UPDATE = defineStatement<ListView>({
  name: 'lists.for-update',
  text: `SELECT id, name, archived FROM lists WHERE id = $1 AND organization_id = $2 FOR NO KEY UPDATE`,
  columns: ['id', 'name', 'archived'],
  sample: (organizationId) => ['', organizationId],
});

/** Renames ($2) and archives or unarchives ($3) list $1; the list as it is then. */
export const UPDATE_LIST = defineStatement<ListView>({
  name: 'lists.update',
  text: `UPDATE lists SET name = $2, archived = $3 WHERE id = $1 RETURNING id, name, archived`,
  columns: ['id', 'name', 'archived'],
  sample: () => ['', '', false],
});

/**
 * Archives list $1 unless it already is (admin `list archive`); its organization comes back only
 * when it changed, so archiving twice is no change.
 */
export const ARCHIVE_LIST = defineStatement<ListView & { organizationId: string }>({
  name: 'lists.archive',
  text: `UPDATE lists SET archived = true WHERE id = $1 AND NOT archived RETURNING id, name, archived, organization_id AS "organizationId"`,
  columns: ['id', 'name', 'archived', 'organizationId'],
  sample: () => [''],
});

export const LISTS_STATEMENTS = [INSERT_LIST, LIST_FOR_UPDATE, UPDATE_LIST, ARCHIVE_LIST];
