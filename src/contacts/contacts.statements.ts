import { randomUUID } from 'node:crypto';
import { STANDARD_FIELD_KEYS } from '../custom-fields/field-definitions';
import { SqlParams } from '../database/sql-params';
import { isoTimeSql } from '../database/sql-text';
import { defineStatement } from '../database/statements';
import { eventsInsertPart } from '../events/events.statements';
import { storeAnswerPart } from '../requests/stored-responses.statements';

/**
 * The hot statements of the contacts pipeline, run on the pg pool directly: through Prisma's
 * interactive transactions each would cost several times the CPU, on every POST; and the contact
 * as JSON text (contactJsonPart), which every read that shows a contact composes. Every other
 * contacts query goes through Prisma Client in contacts.repository.ts.
 */

/**
 * The one mapping of standard fields to their columns: each key of STANDARD_FIELD_KEYS in
 * snake_case, as schema.prisma maps it (test/database/statements.e2e-spec.ts checks every column
 * against the migrated schema). Every statement below is built from it, so adding a standard field
 * touches STANDARD_FIELD_KEYS, the schema and the DTO only.
 */
export const STANDARD_FIELD_COLUMNS = STANDARD_FIELD_KEYS.map((key) => [key, key.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`)] as const);
export const STANDARD_COLUMNS = STANDARD_FIELD_COLUMNS.map(([, column]) => column);

/** The standard columns of a contact `c`, each named by its field key, in STANDARD_FIELD_COLUMNS order (the CSV export's cells). */
export function standardFieldsPart(c: string): string {
  return STANDARD_FIELD_COLUMNS.map(([key, column]) => `${c}.${column} AS "${key}"`).join(', ');
}

/**
 * Transaction-scoped advisory locks on (organization, email), taken in ascending key order in
 * one statement: concurrent requests on the same emails serialize instead of racing, and two
 * requests never wait on each other in opposite orders. Every path that changes a contact by
 * email takes these locks first ($1 organization id, $2 normalized emails).
 */
export const LOCK_EMAILS = defineStatement<{ locked: number }>({
  name: 'contacts.lock-emails',
  text: `SELECT count(*)::int AS locked FROM (
        SELECT pg_advisory_xact_lock(k) FROM (
          SELECT DISTINCT hashtextextended($1 || ':' || e, 0) AS k
          FROM unnest($2::text[]) AS e
          ORDER BY k
        ) AS keys
      ) AS locks`,
  columns: ['locked'],
  sample: (organizationId) => [organizationId, []],
});

/**
 * Where a statement reads a contact's list ids and suppression: by default (contactLookupsPart) a
 * lookup per contact; a statement that has them at hand for every row gives its own (the export
 * joins them in email order; the pipeline's write statement takes them as parameters, for the rows
 * it writes).
 */
export interface ContactSources {
  /** The list ids as a text[], in membership order (created_at, then list id); empty, never NULL. */
  listIdsArray: string;
  /** The suppression reason as text, NULL when the address is not suppressed. */
  suppressionReason: string;
}

/** A contact `c`'s list ids and suppression looked up per contact, through the membership and suppression keys. */
export function contactLookupsPart(c: string): ContactSources {
  return {
    listIdsArray: `ARRAY(SELECT m.list_id FROM list_memberships m WHERE m.contact_id = ${c}.id ORDER BY m.created_at, m.list_id)`,
    suppressionReason: `(SELECT s.reason::text FROM suppressions s WHERE s.organization_id = ${c}.organization_id AND s.email = ${c}.email)`,
  };
}

/**
 * A contact `c` (a row of contacts, every column) as GET /api/v2/contacts/{email} shows it, as JSON
 * text: the one rendering of a contact, composed by every statement that shows one (GET, the
 * listing, the export, the events of the write paths that read the contact: contact-views.ts, and
 * the pipeline's write statement, whose events show the rows it writes: WRITE_CONTACTS).
 * test/contacts/contact-json.e2e-spec.ts checks that GET, the listing, the export and the events
 * send the same bytes.
 *
 * The keys in the order of EventContact (event-types.ts); `fields`: the standard ones with a value in
 * STANDARD_FIELD_COLUMNS order, then the custom ones without nulls in their stored (jsonb) order;
 * times as toISOString writes them. Strings are escaped by PostgreSQL's JSON output; custom fields
 * are re-emitted compactly by json_strip_nulls (which also drops their nulls, as reads do), their
 * braces cut off by left/right (the text computed once). Numbers are jsonb's text: the same JSON
 * number as JavaScript's, written in full where JSON.stringify uses an exponent (`1e21`, `1e-7`).
 *
 * The list ids, by default (contactLookupsPart): an index-only scan of the membership primary key
 * (contact_id, list_id) INCLUDE (created_at), then a sort of the contact's few memberships into
 * membership order. Both contact id columns have the "C" collation (set in SQL: the Prisma schema
 * cannot express it), so the descents compare bytes (memcmp), not strcoll under the database's
 * locale. No aggregate: an ARRAY() subquery (an empty one is `[]`). The primary key serves it, so no
 * extra index in byte order costs every membership insert; one grouped scan of a page's memberships
 * instead of a lookup per contact costs the same. The suppression, by default: a probe of the
 * suppressions' key.
 */
export function contactJsonPart(c: string, sources: ContactSources = contactLookupsPart(c)): string {
  const standard = STANDARD_FIELD_COLUMNS.map(([key, column]) => `'"${key}":' || to_json(${c}.${column})::text`);
  return `'{"id":' || to_json(${c}.id)::text
      || ',"email":' || to_json(${c}.email)::text
      || ',"listIds":' || array_to_json(${sources.listIdsArray})::text
      || ',"fields":{' || concat_ws(',', ${standard.join(', ')},
                                          NULLIF(left(right(json_strip_nulls(${c}.custom_fields::json)::text, -1), -1), ''))
      || '},"suppressed":' || COALESCE('{"reason":"' || ${sources.suppressionReason} || '"}', 'null')
      || ',"createdAt":"' || ${isoTimeSql(`${c}.created_at`)} || '","updatedAt":"' || ${isoTimeSql(`${c}.updated_at`)} || '"}'`;
}

/**
 * The contact of organization $1 with the normalized email $2 as JSON text (contactJsonPart): GET
 * /api/v2/contacts/{email}, one statement outside any transaction; no row when there is none.
 */
export const CONTACT_JSON = defineStatement<{ contact: string }>({
  name: 'contacts.json',
  text: `SELECT ${contactJsonPart('c')} AS contact FROM contacts c WHERE c.organization_id = $1::text AND c.email = $2::text`,
  columns: ['contact'],
  sample: (organizationId) => [organizationId, ''],
});

/**
 * The contacts of organization $1 with the (normalized) emails $2, as ContactRow
 * (contacts.repository.ts) reads them: what the pipeline's rules read. Each with its list ids and
 * suppression (contactLookupsPart, the one lookup of them) and when each membership was made (same
 * order as list_ids: the pipeline's events show the list ids after a change in the order GET
 * /contacts/{email} will). One probe of the (organization_id, email) key per email (a LATERAL probe
 * per element of $2), not `c.email = ANY($2)`, because without table statistics (a young table
 * before autovacuum's ANALYZE) the planner took the other index that starts with organization_id,
 * (organization_id, updated_at), and read every contact of the organization (8.4 ms per batch in
 * the bench's batchCreate instead of 0.2 ms).
 */
function contactRows(): string {
  const lookups = contactLookupsPart('c');
  return `
    SELECT c.id, c.email, ${STANDARD_COLUMNS.map((column) => `c.${column}`).join(', ')}, c.custom_fields,
           ${lookups.listIdsArray} AS list_ids,
           ARRAY(SELECT m.created_at FROM list_memberships m WHERE m.contact_id = c.id ORDER BY m.created_at, m.list_id) AS list_added_at,
           ${lookups.suppressionReason} AS suppression_reason
    FROM unnest($2::text[]) AS wanted(email)
    -- LIMIT 1 (the key is unique) keeps this a probe per email: never flattened into a join
    CROSS JOIN LATERAL (SELECT * FROM contacts WHERE organization_id = $1 AND email = wanted.email LIMIT 1) AS c`;
}

export interface RuleContextRow {
  /** The transaction's now(), as the timestamptz(3) columns store it (the written rows' times). */
  now: Date;
  active_list_ids: string[];
  custom_fields: unknown;
  contacts: unknown;
  suppressions: unknown;
}

/**
 * Everything rules 4–10 need, in ONE statement (one round trip): the requested lists that are
 * active, the organization's custom field definitions, the existing contacts of these emails
 * (with list ids and suppression) and the suppressions of these emails, plain or erased (kept
 * under a hash). Runs after LOCK_EMAILS, in its own statement, so its snapshot already sees every
 * write the locks waited for.
 * $1 organization id, $2 normalized emails, $3 requested list ids, $4 the emails' HMACs (same order as $2).
 */
export const READ_RULE_CONTEXT = defineStatement<RuleContextRow>({
  name: 'contacts.read-rule-context',
  text: `SELECT
        now()::timestamptz(3) AS now,
        ARRAY(SELECT l.id FROM lists l
              WHERE l.organization_id = $1 AND NOT l.archived AND l.id = ANY($3::text[])
        ) AS active_list_ids,
        (SELECT COALESCE(json_agg(json_build_object('key', f.key, 'type', f.type, 'required', f.required,
                                                    'defaultValue', f.default_value, 'options', f.options)
                                  ORDER BY f.created_at, f.key), '[]'::json)
         FROM custom_fields f WHERE f.organization_id = $1) AS custom_fields,
        (SELECT COALESCE(json_agg(c), '[]'::json) FROM (${contactRows()}) AS c) AS contacts,
        (SELECT COALESCE(json_agg(json_build_object('email', s.email, 'reason', s.reason, 'erased', s.erased)), '[]'::json)
         FROM (
           SELECT p.email, p.reason, false AS erased FROM suppressions p
           WHERE p.organization_id = $1 AND p.email = ANY($2::text[])
           UNION ALL
           -- Erased addresses stay suppressed under the HMAC of the address ($4[i] of $2[i]).
           SELECT h.email, e.reason, true FROM unnest($2::text[], $4::text[]) AS h(email, hash)
           JOIN erased_suppressions e ON e.organization_id = $1 AND e.email_hash = h.hash
         ) AS s) AS suppressions`,
  columns: ['now', 'active_list_ids', 'custom_fields', 'contacts', 'suppressions'],
  sample: (organizationId) => [organizationId, [], [], []],
});

/**
 * A create (with overwrite: true) stores an erased address again: its erased suppression becomes
 * a plain one (reason and time kept), so every check that reads plain suppressions by email sees
 * it (GET /contacts/{email}, listing). Runs in the pipeline's transaction, after the write, only
 * when such a create happened (rare: no cost on the common path).
 * $1 organization id, $2 normalized emails, $3 their hashes (same order).
 */
export const RESTORE_ERASED_SUPPRESSIONS = defineStatement<{ restored: number }>({
  name: 'contacts.restore-erased-suppressions',
  text: `WITH moved AS (
        DELETE FROM erased_suppressions e
        USING unnest($2::text[], $3::text[]) AS h(email, hash)
        WHERE e.organization_id = $1 AND e.email_hash = h.hash
        RETURNING h.email, e.reason, e.created_at
      ), restored AS (
        INSERT INTO suppressions (organization_id, email, reason, created_at)
        SELECT $1, email, reason, created_at FROM moved
        ON CONFLICT DO NOTHING
        RETURNING 1
      )
      SELECT count(*)::int AS restored FROM restored`,
  columns: ['restored'],
  sample: (organizationId) => [organizationId, [], []],
});

/**
 * The parameters of the write statement, in order. Its text is built from them once, so the
 * placeholders and the values bound by `writeValues` (contacts.repository.ts) cannot drift apart.
 */
const created = ['ids', 'emails', ...STANDARD_COLUMNS, 'custom_fields'] as const;
const updated = ['ids', ...STANDARD_COLUMNS, 'custom_fields'] as const;

function writeText(withAnswer: boolean): string {
  const p = new SqlParams();
  const org = p.add('organization');
  const createdArrays = created.map((column) => `${p.add(column)}::text[]`);
  const updatedArrays = updated.map((column) => `${p.add(column)}::text[]`);
  const memberships = [
    `${p.add('contact_id')}::text[]`,
    `${p.add('list_id')}::text[]`,
    `${p.add('new_contact')}::boolean[]`,
    `${p.add('membership_email')}::text[]`,
  ].join(', ');
  // What the events show of each written contact besides its row (contactSourcesValues, contacts.repository.ts): its list
  // ids, a slice of one array of them all, and its suppression.
  const listIds = p.add('list_ids');
  const sources = `${p.add('source_contact_ids')}::text[], ${p.add('list_ids_from')}::int[], ${p.add('list_ids_to')}::int[], ${p.add('suppression_reasons')}::text[]`;
  return `WITH inserted AS (
        INSERT INTO contacts (id, organization_id, email, ${STANDARD_COLUMNS.join(', ')}, custom_fields, created_at, updated_at)
        SELECT r.id, ${org}, r.email, ${STANDARD_COLUMNS.map((c) => `r.${c}`).join(', ')}, r.custom_fields::jsonb, now(), now()
        FROM unnest(${createdArrays.join(', ')})
             AS r(id, email, ${STANDARD_COLUMNS.join(', ')}, custom_fields)
        RETURNING *
      ), updated AS (
        UPDATE contacts AS c
        SET ${STANDARD_COLUMNS.map((c) => `${c} = r.${c}`).join(', ')}, custom_fields = r.custom_fields::jsonb,
            updated_at = now()
        FROM unnest(${updatedArrays.join(', ')})
             AS r(id, ${STANDARD_COLUMNS.join(', ')}, custom_fields)
        WHERE c.id = r.id AND c.organization_id = ${org}
        RETURNING c.*
      ), added_memberships AS (
        INSERT INTO list_memberships (contact_id, list_id, email)
        SELECT m.contact_id, m.list_id, m.email
        FROM unnest(${memberships}) AS m(contact_id, list_id, new_contact, email)
        WHERE NOT m.new_contact
        ON CONFLICT DO NOTHING
      ), new_memberships AS (
        INSERT INTO list_memberships (contact_id, list_id, email)
        SELECT m.contact_id, m.list_id, m.email
        FROM unnest(${memberships}) AS m(contact_id, list_id, new_contact, email)
        WHERE m.new_contact AND m.contact_id IN (SELECT id FROM inserted)
      ), contact_texts AS (
        SELECT w.id AS contact_id,
               ${contactJsonPart('w', { listIdsArray: `(${listIds}::text[])[s.list_ids_from:s.list_ids_to]`, suppressionReason: 's.reason' })} AS contact
        FROM (SELECT * FROM inserted UNION ALL SELECT * FROM updated) AS w
        JOIN unnest(${sources}) AS s(contact_id, list_ids_from, list_ids_to, reason) ON s.contact_id = w.id
      ), written_events AS (
        ${eventsInsertPart(p, org, 'contact_texts')}
      )${withAnswer ? `, stored_answer AS (
        ${storeAnswerPart(p, org)}
      )` : ''}, generic_checks AS (
        SELECT set_config('plan_cache_mode', 'force_generic_plan', true) AS mode
      )
      SELECT (SELECT count(*)::int FROM inserted) AS inserted FROM generic_checks`;
}

/**
 * The contacts' writes of a request in ONE statement: new contacts, updated contacts (the whole
 * merged row, updated_at bumped) and added memberships (never removed; an existing one stays as it
 * is; each with its contact's email, the listing's order by list), their change events and the
 * request's stored answer: one round trip. The events' and the answer's INSERTs are their modules'
 * own parts (eventsInsertPart, storeAnswerPart), composed here after the contacts' parameters.
 * Each event's `data.contact` is its contact's row as this statement writes it (RETURNING of
 * `inserted` and `updated`), rendered by contactJsonPart (`contact_texts`) with the list ids and
 * the suppression the pipeline gives (it knows them after its read: the memberships this statement
 * adds are not visible to its own reads); the events' part joins each event to its contact's text.
 * Returns how many contacts were inserted. New contacts and their memberships are plain INSERTs,
 * not ON CONFLICT: a speculative insertion costs each row a probe of every unique index before
 * the insert, a lock-manager round and an extra WAL record to confirm it, a large share of a
 * batch's WAL and buffer accesses. The email locks keep every other writer of these emails out
 * and a new contact's id is made by this request, so neither can conflict; if a writer bypassing
 * the locks inserted the same email meanwhile, the unique index fails the statement (23505) and
 * the pipeline retries the whole transaction, as it does when a create was skipped (the count).
 * The memberships added to existing contacts keep ON CONFLICT DO NOTHING: another path (the list
 * membership endpoints) may have added the same one meanwhile, and it stays as it is.
 *
 * Its foreign-key checks (each new contact's organization, each new membership's contact and list:
 * one query a row, run by PostgreSQL when the statement ends) run with their generic plans, made
 * once per connection. The pool plans every statement with its values
 * (plan_cache_mode=force_custom_plan), and that setting would have PostgreSQL plan each check again
 * for every row, which costs more than the check itself. So the statement sets plan_cache_mode to
 * generic itself (`generic_checks`): its own plan was made with its values when it was bound, the
 * checks come after. The setting lasts until the transaction ends: the pipeline sets it back
 * (RESET_PLAN_CACHE_MODE) before any other statement of the transaction.
 */
export const WRITE_CONTACTS_AND_ANSWER = defineStatement<{ inserted: number }>({
  name: 'contacts.write-and-store',
  text: writeText(true),
  columns: ['inserted'],
  // A fresh request id each time (concurrent warm-ups never wait on each other's row); the sample
  // runs only inside a rolled-back transaction.
  sample: (organizationId) => [...emptyWrite(organizationId), randomUUID(), 200, '{}', null, []],
});

/** WRITE_CONTACTS_AND_ANSWER without a stored answer: the rows of an import (contract 17). */
export const WRITE_CONTACTS = defineStatement<{ inserted: number }>({
  name: 'contacts.write',
  text: writeText(false),
  columns: ['inserted'],
  sample: (organizationId) => emptyWrite(organizationId),
});

/** Values that write nothing: no contact, no membership, no event. */
function emptyWrite(organizationId: string): unknown[] {
  const memberships = [[], [], [], []];
  const sources = [[], [], [], [], []];
  const events = [null, null, [], [], [], [], [], []];
  return [organizationId, ...created.map(() => []), ...updated.map(() => []), ...memberships, ...sources, ...events];
}

export const CONTACTS_STATEMENTS = [CONTACT_JSON, LOCK_EMAILS, READ_RULE_CONTEXT, WRITE_CONTACTS_AND_ANSWER, WRITE_CONTACTS, RESTORE_ERASED_SUPPRESSIONS];
