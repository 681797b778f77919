import { defineStatement } from '../database/statements';
import { contactJsonPart, contactLookupsPart, type ContactSources, standardFieldsPart } from '../contacts/contacts.statements';
import { STANDARD_FIELD_KEYS } from '../custom-fields/field-definitions';

/**
 * The export's SQL (GET /api/v2/contacts/export, docs/api.md "Exports"), all run in the export's
 * own transaction (export-stream.ts), in this order: EXPORT_SLOT, EXPORT_LIST_FOUND,
 * EXPORT_FREEZE, the DECLARE of EXPORT_ROWS, EXPORT_PLACE, EXPORT_THAW, then FETCHes.
 */

/**
 * The two export slots of an organization: transaction-level advisory locks under their own
 * namespaces ('EXP0' and 'EXP1' as int4), keyed by hashtext of the organization id, so every
 * instance sees them and a dead connection frees its slot. Which slot was taken (0 or 1), or null
 * when both are held (429 TOO_MANY_EXPORTS). CASE tries the second only when the first is taken.
 * Two organizations whose ids hash alike share their slots: they may see a 429 a little sooner.
 */
export const EXPORT_SLOT = defineStatement<{ slot: number | null }>({
  name: 'exports.slot',
  text: `SELECT CASE WHEN pg_try_advisory_xact_lock(1163415600, hashtext($1::text)) THEN 0
                     WHEN pg_try_advisory_xact_lock(1163415601, hashtext($1::text)) THEN 1 END AS slot`,
  columns: ['slot'],
  sample: (organizationId) => [organizationId],
});

/** Whether $2 is a list of organization $1 (archived lists are lists). */
export const EXPORT_LIST_FOUND = defineStatement<{ found: boolean }>({
  name: 'exports.list-found',
  text: `SELECT EXISTS (SELECT 1 FROM lists WHERE id = $2::text AND organization_id = $1::text) AS found`,
  columns: ['found'],
  sample: (organizationId) => [organizationId, ''],
});

/**
 * The feed's horizon lock of organization $1 (the key of the SQL function event_horizon:
 * namespace 'EVNT', hashtext of the id), taken EXCLUSIVE and at session level. It is
 * granted once every transaction of the organization that took a commit position has ended, and
 * while it is held no transaction of the organization can take one: each blocks in its COMMIT
 * (events_take_commit_position). Since every change writes an event in its own transaction
 * (contract section 14), the organization's committed state stands still until EXPORT_THAW.
 * Session level because a transaction-level lock cannot be given back before the transaction ends,
 * and the export's transaction lasts as long as its stream.
 */
export const EXPORT_FREEZE = defineStatement<{ frozen: boolean }>({
  name: 'exports.freeze',
  text: `SELECT true AS frozen FROM (SELECT pg_advisory_lock(1163284052, hashtext($1::text))) AS l`,
  columns: ['frozen'],
  // pg_advisory_lock is strict: with a null key it is not called, so warm-up takes no lock.
  sample: () => [null],
});

/** Gives back EXPORT_FREEZE's lock. */
export const EXPORT_THAW = defineStatement<{ thawed: boolean }>({
  name: 'exports.thaw',
  text: `SELECT pg_advisory_unlock(1163284052, hashtext($1::text)) AS thawed`,
  columns: ['thawed'],
  sample: () => [null],
});

/** A row of EXPORT_PLACE. */
export interface ExportPlaceRow {
  /** bigint as text: the last commit position handed out (any organization's). */
  position: string;
  /** bigint as text: the last seq of the organization's events at `position`, 0 when it has none there. */
  seq: string;
  /** The organization's custom field keys, in byte order (the CSV header's last columns). */
  fieldKeys: string[];
}

/**
 * Read while EXPORT_FREEZE is held, after the DECLARE: the feed's place of the export's snapshot.
 * Every commit position of organization $1 up to `position` was taken before the lock was granted,
 * so it is visible to the snapshot (or rolled back for good); every later one is taken after the
 * lock is given back, so it commits after the snapshot. The events at or before (position, seq)
 * are then exactly the snapshot's. The sequence is read outside any snapshot.
 */
export const EXPORT_PLACE = defineStatement<ExportPlaceRow>({
  name: 'exports.place',
  text: `SELECT h.position::text AS position,
           COALESCE((SELECT max(e.seq) FROM event_commits c JOIN events e ON e.organization_id = c.organization_id AND e.xid = c.xid
                     WHERE c.organization_id = $1::text AND c.position = h.position), 0)::text AS seq,
           ARRAY(SELECT f.key FROM custom_fields f WHERE f.organization_id = $1::text ORDER BY f.key COLLATE "C") AS "fieldKeys"
    FROM (SELECT CASE WHEN s.is_called THEN s.last_value ELSE s.last_value - 1 END AS position FROM event_position_seq s) AS h`,
  columns: ['position', 'seq', 'fieldKeys'],
  sample: (organizationId) => [organizationId],
});

/**
 * The contacts of organization $1 matching the listing's filters ($2 listId, $3 suppressed, $4
 * updatedSince; null: not given), in the listing's order (email in byte order), each as `select`
 * makes it from `c` (the contact) and the sources of its list ids and suppression. Opened as a
 * cursor (DECLARE … NO SCROLL CURSOR FOR this text): the export is one plan walked in email order
 * through contacts_organization_id_email_c_idx, each FETCH taking the next rows.
 *
 * `joined` (every export without updatedSince, which walks all of the organization's contacts):
 * - `g`: each address's list ids in membership order, from the organization's memberships grouped
 *   by email in byte order and merge-joined with the contacts: one pass over the memberships (one
 *   sort, made by the first FETCH) instead of a probe of the membership key per contact, which
 *   lands on another page of the key for nearly every contact (the key is in contact id order);
 * - `s`: the suppression, merge-joined through suppressions_organization_id_email_c_idx.
 * A membership's email is its contact's (written with it, never changed) and emails are unique in
 * an organization, so joining by email is joining by contact.
 * Not joined (updatedSince, which may match a few contacts of many): contactLookupsPart, a lookup per
 * contact, so that a small export does not pass over every membership.
 */
function exportRows(select: (sources: ContactSources) => string, joined: boolean): string {
  if (!joined) {
    return `SELECT ${select(contactLookupsPart('c'))}
    FROM contacts c
    WHERE c.organization_id = $1::text
      AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM list_memberships lm WHERE lm.contact_id = c.id AND lm.list_id = $2::text))
      AND ($3::boolean IS NULL OR EXISTS (SELECT 1 FROM suppressions ss WHERE ss.organization_id = c.organization_id AND ss.email = c.email) = $3::boolean)
      AND c.updated_at >= $4::timestamptz
    ORDER BY c.email COLLATE "C"`;
  }
  return `SELECT ${select({ listIdsArray: `COALESCE(g.list_ids, '{}')`, suppressionReason: 's.reason::text' })}
    FROM contacts c
    LEFT JOIN (SELECT m.email COLLATE "C" AS email, array_agg(m.list_id ORDER BY m.created_at, m.list_id) AS list_ids
               FROM lists l JOIN list_memberships m ON m.list_id = l.id
               WHERE l.organization_id = $1::text
               GROUP BY m.email COLLATE "C") g ON g.email = c.email COLLATE "C"
    LEFT JOIN suppressions s ON s.organization_id = c.organization_id AND s.email COLLATE "C" = c.email COLLATE "C"
    WHERE c.organization_id = $1::text
      AND ($2::text IS NULL OR $2::text = ANY(g.list_ids))
      AND ($3::boolean IS NULL OR (s.email IS NOT NULL) = $3::boolean)
      AND $4::timestamptz IS NULL
    ORDER BY c.email COLLATE "C"`;
}

/** Each contact as the JSON text GET /contacts/{email} shows (contactJsonPart, the contacts module's): an NDJSON line. */
const ndjsonRow = (sources: ContactSources) => `${contactJsonPart('c', sources)} AS contact`;

/**
 * Each contact as the cells of a CSV record (export-csv.ts, exportRecord), in this column order:
 * email, list ids joined by `;`, the suppression reason, the standard fields (null: no value), then
 * the custom fields as their jsonb text (null when there are none), from which the service takes
 * the organization's keys in byte order.
 */
const csvRow = (sources: ContactSources) =>
  `c.email, array_to_string(${sources.listIdsArray}, ';') AS "listIds", ${sources.suppressionReason} AS suppressed,
           ${standardFieldsPart('c')},
           NULLIF(c.custom_fields, '{}'::jsonb)::text AS "customFields"`;

/** A row of EXPORT_ROWS.csv (FETCHed as arrays, in `columns` order). */
export type ExportCsvRow = Record<string, string | null>;
const CSV_COLUMNS = ['email', 'listIds', 'suppressed', ...STANDARD_FIELD_KEYS, 'customFields'];

/** The export's rows by format, without and with updatedSince (exportRows's `joined`). */
export const EXPORT_ROWS = {
  ndjson: defineStatement<{ contact: string }>({
    name: 'exports.rows',
    text: exportRows(ndjsonRow, true),
    columns: ['contact'],
    sample: (organizationId) => [organizationId, null, null, null],
  }),
  ndjsonUpdatedSince: defineStatement<{ contact: string }>({
    name: 'exports.rows-updated-since',
    text: exportRows(ndjsonRow, false),
    columns: ['contact'],
    sample: (organizationId) => [organizationId, null, null, new Date()],
  }),
  csv: defineStatement<ExportCsvRow>({
    name: 'exports.csv-rows',
    text: exportRows(csvRow, true),
    columns: CSV_COLUMNS,
    sample: (organizationId) => [organizationId, null, null, null],
  }),
  csvUpdatedSince: defineStatement<ExportCsvRow>({
    name: 'exports.csv-rows-updated-since',
    text: exportRows(csvRow, false),
    columns: CSV_COLUMNS,
    sample: (organizationId) => [organizationId, null, null, new Date()],
  }),
};

export const EXPORTS_STATEMENTS = [EXPORT_SLOT, EXPORT_LIST_FOUND, EXPORT_FREEZE, EXPORT_THAW, EXPORT_PLACE, ...Object.values(EXPORT_ROWS)];
