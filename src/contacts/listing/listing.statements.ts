import { defineStatement, type RegisteredStatement } from '../../database/statements';
import { contactJsonPart } from '../contacts.statements';

/**
 * The page of GET /api/v2/contacts as registered statements on the pg pool: a page of 1,000 is
 * hot, and through Prisma most of its CPU would go to decoding rows and serializing the answer.
 * PostgreSQL renders the page's contacts as
 * JSON text, in chunks of 100, and the controller writes the chunks as they are (as the events feed
 * does, events.statements.ts FEED_PAGE).
 *
 * Where a page's contacts come from (the "walk", chosen in contact-listing.repository.ts) decides the
 * statement: one per walk, the filters that the walk does not serve being per-row probes. A filter
 * that was not given is a condition PostgreSQL folds away (`$n IS NULL OR …`): the pool plans every
 * call with its values (`plan_cache_mode=force_custom_plan`, database.ts), so each call is planned as
 * if the absent filter had never been written. The gathered `updatedSince` walk joins its filters
 * (semi- and anti-joins the planner may hash), which it can do only for a condition written plainly,
 * never inside an OR: one statement per combination of its filters there.
 */

/** Where a page's contacts come from, in listing order (or gathered and sorted). */
export type ListingDriver = 'contacts' | 'members' | 'suppressions' | 'updated';

/** The values a page statement may take, by name (each statement lists those it uses, in order). */
export interface ListingValues {
  organizationId: string;
  /** Only contacts whose email sorts after this one (byte order): '' from the start (no email is empty). */
  after: string;
  /** The page size; the statement reads one more row to tell whether more follow. */
  limit: number;
  listId: string | null;
  suppressed: boolean | null;
  updatedSince: Date | null;
}
type ListingParam = keyof ListingValues;
const PARAM_TYPES: Record<ListingParam, string> = {
  organizationId: 'text',
  after: 'text',
  limit: 'int',
  listId: 'text',
  suppressed: 'boolean',
  updatedSince: 'timestamptz',
};

/**
 * A row of a page statement: up to 100 consecutive contacts of the page, the "more follow" mark,
 * or (alone, both columns null) the mark that `listId` names no list of the organization.
 */
export interface ListingPageRow {
  /**
   * The chunk's contacts as GET /api/v2/contacts/{email} shows them, comma-separated, in listing
   * order (members of the page's JSON array); null on the last row when more contacts follow
   * than the page holds, and on the no-such-list row.
   */
  contacts: string | null;
  /** The email of the chunk's last contact (the next cursor's, for the page's last chunk); null only on the no-such-list row. */
  lastEmail: string | null;
}

/** A page statement and the names of its parameters, in placeholder order. */
export interface ListingStatement extends RegisteredStatement<ListingPageRow> {
  readonly params: readonly ListingParam[];
}

/** The values of `statement`'s placeholders, in order. */
export function listingValues(statement: Pick<ListingStatement, 'params'>, values: ListingValues): unknown[] {
  return statement.params.map((name) => values[name]);
}

/** Placeholders in order of first use: `p.$('listId')` → `$4::text`. */
class Params {
  readonly names: ListingParam[] = [];

  $(name: ListingParam): string {
    if (!this.names.includes(name)) this.names.push(name);
    return `$${this.names.indexOf(name) + 1}::${PARAM_TYPES[name]}`;
  }
}

/**
 * The page's contacts (`page`: every contact column, at most limit + 1 rows, any order) rendered
 * (contactJsonPart, contacts.statements.ts) and joined into rows of 100 in listing order, the row
 * past the limit (if any) alone on a last row with `contacts` null. The rendering and the per-contact subqueries run for the page's rows only.
 *
 * Never a parallel plan: `pg_current_xact_id_if_assigned()` is PARALLEL UNSAFE, and a statement
 * that names one is never planned parallel (PostgreSQL's "When Can Parallel Query Be Used?"; the
 * check reads the statement as written, before `… OR true` is folded away, so the call is never
 * made). Unlike `SET LOCAL max_parallel_workers_per_gather = 0`, which needs a transaction (BEGIN,
 * SET LOCAL, COMMIT: three more round trips), a page stays one statement on the pool. A page reads
 * a few thousand buffers in index order; a Gather (Merge) adds worker processes that start cold,
 * slower under load than the whole page. On a large organization the gathered `updatedSince` joined
 * with a list or the suppressions would be planned parallel without the call;
 * test/contacts/listing-page.e2e-spec.ts checks both.
 */
function rendered(page: string, limit: string, listFound: string | null): string {
  const chunks = `SELECT string_agg(r.contact, ',' ORDER BY r.n) AS contacts, (array_agg(r.email ORDER BY r.n DESC))[1] AS "lastEmail"
    FROM (
      SELECT p.n, p.email, CASE WHEN p.n <= ${limit} THEN (p.n - 1) / 100 END AS chunk,
             CASE WHEN p.n <= ${limit} THEN ${contactJsonPart('p')} END AS contact
      FROM (SELECT c.*, row_number() OVER (ORDER BY c.email COLLATE "C") AS n FROM (${page}) AS c) AS p
    ) AS r
    WHERE (pg_current_xact_id_if_assigned() IS NULL OR true)${listFound === null ? '' : ` AND ${listFound}`}
    GROUP BY r.chunk
    ORDER BY r.chunk NULLS LAST`;
  // The list check of GET /contacts?listId= in the same round trip: `listFound` is a condition on no
  // row (an InitPlan, a one-time filter), so for another organization's list the walk never starts
  // (its members would otherwise be walked, each probed in vain), and the only row is the mark.
  return listFound === null ? chunks : `(${chunks})\n    UNION ALL SELECT NULL, NULL WHERE NOT ${listFound}`;
}

interface Variant {
  driver: ListingDriver;
  /** `updated` only: the filters it joins (the other walks take every filter as a folded condition). */
  listId?: boolean;
  suppressed?: boolean | null;
}

function pageStatement(variant: Variant): ListingStatement {
  const { driver } = variant;
  const p = new Params();
  const org = p.$('organizationId');
  const after = (email: string) => `${email} COLLATE "C" > ${p.$('after')}`;
  const limit = `${p.$('limit')} + 1`;
  // The filters that the walk does not serve, as probes made per walked row, in walk order,
  // through a key (`id`: the contact's id; `email`: the walked row's own email, so a row a probe
  // rejects is dropped before its contact is read). OFFSET 0 keeps each EXISTS a per-row probe:
  // without it the planner may turn it into a join that reads every match after the cursor
  // (a hash of the list's members or of the suppressions) and sorts them, which it did whenever
  // its estimates say the filters are sparse, which they cannot judge for filters combined.
  const listProbe = (keys: { id?: string; email: string }) =>
    keys.id
      ? `EXISTS (SELECT 1 FROM list_memberships lm WHERE lm.contact_id = ${keys.id} AND lm.list_id = ${p.$('listId')} OFFSET 0)`
      : `EXISTS (SELECT 1 FROM list_memberships lm WHERE lm.list_id = ${p.$('listId')} AND lm.email COLLATE "C" = ${keys.email} COLLATE "C" OFFSET 0)`;
  const suppressionProbe = (email: string) =>
    `EXISTS (SELECT 1 FROM suppressions ss WHERE ss.organization_id = ${org} AND ss.email = ${email} OFFSET 0)`;
  const optional = {
    list: (keys: { id?: string; email: string }) => `(${p.$('listId')} IS NULL OR ${listProbe(keys)})`,
    suppressed: (email: string) =>
      `(${p.$('suppressed')} IS DISTINCT FROM true OR ${suppressionProbe(email)})` +
      ` AND (${p.$('suppressed')} IS DISTINCT FROM false OR NOT ${suppressionProbe(email)})`,
    updated: `(${p.$('updatedSince')} IS NULL OR c.updated_at >= ${p.$('updatedSince')})`,
  };

  let page: string;
  let name: string;
  if (driver === 'contacts') {
    // The organization's contacts in email order (contacts_organization_id_email_c_idx).
    name = 'contacts';
    page = `SELECT c.* FROM contacts c
        WHERE c.organization_id = ${org} AND ${after('c.email')} AND ${optional.updated}
          AND ${optional.list({ id: 'c.id', email: 'c.email' })} AND ${optional.suppressed('c.email')}
        ORDER BY c.email COLLATE "C" LIMIT ${limit}`;
  } else if (driver === 'updated') {
    // Gathered through contacts_organization_id_updated_at_idx (MATERIALIZED: planned alone,
    // without the LIMIT that would make the planner walk email order), only (id, email), with the
    // other filters as the planner sees fit (at up to GATHER_UPDATED_MAX rows, a hash of the
    // list's members after the cursor, index-only, beats a probe per row: 11k buffers instead of
    // 40k for the 10% list and the last day), sorted, then the page's rows read.
    const joined: string[] = [];
    if (variant.listId) {
      // Not per row, with the cursor's bound too, so that the planner can hash the list's members after the cursor.
      joined.push(`EXISTS (SELECT 1 FROM list_memberships lm WHERE lm.list_id = ${p.$('listId')}
            AND lm.email COLLATE "C" = c.email COLLATE "C" AND ${after('lm.email')})`);
    }
    if (variant.suppressed !== null && variant.suppressed !== undefined) {
      const exists = `EXISTS (SELECT 1 FROM suppressions ss WHERE ss.organization_id = ${org} AND ss.email = c.email)`;
      joined.push(variant.suppressed ? exists : `NOT ${exists}`);
    }
    name = `updated${variant.listId ? '-list' : ''}${variant.suppressed === null ? '' : `-suppressed-${String(variant.suppressed)}`}`;
    page = `WITH matched AS MATERIALIZED (
          SELECT c.id, c.email FROM contacts c
          WHERE c.organization_id = ${org} AND c.updated_at >= ${p.$('updatedSince')} AND ${after('c.email')}${joined.map((condition) => ` AND ${condition}`).join('')}
        ),
        chosen AS (SELECT id, email FROM matched ORDER BY email COLLATE "C" LIMIT ${limit})
        SELECT c.* FROM chosen JOIN contacts c ON c.id = chosen.id`;
  } else {
    // The list's members (list_memberships_list_id_email_c_idx, index-only) or the
    // organization's suppressions (suppressions_organization_id_email_c_idx) in email order,
    // each walked row's contact found by its email, one probe per row (LATERAL ... LIMIT 1:
    // never a join that reads the contacts after the cursor and sorts them).
    name = driver;
    const members = driver === 'members';
    const walk = members ? `list_memberships d WHERE d.list_id = ${p.$('listId')}` : `suppressions d WHERE d.organization_id = ${org}`;
    const probes = members ? optional.suppressed('d.email') : optional.list({ email: 'd.email' });
    const contact = members ? `c.email COLLATE "C" = d.email COLLATE "C"` : `c.email = d.email`;
    page = `SELECT c.* FROM (
          SELECT d.email FROM ${walk} AND ${after('d.email')} AND ${probes}
          ORDER BY d.email COLLATE "C"
        ) AS d
        CROSS JOIN LATERAL (
          SELECT c.* FROM contacts c WHERE c.organization_id = ${org} AND ${contact} AND ${optional.updated} LIMIT 1
        ) AS c
        ORDER BY d.email COLLATE "C" LIMIT ${limit}`;
  }
  // A statement that takes a list (every walk but `updated` without one) checks that it is the organization's.
  const listFound = p.names.includes('listId')
    ? `(${p.$('listId')} IS NULL OR EXISTS (SELECT 1 FROM lists l WHERE l.id = ${p.$('listId')} AND l.organization_id = ${org}))`
    : null;
  const text = rendered(page, p.$('limit'), listFound);
  const params = [...p.names];
  const samples: Omit<ListingValues, 'organizationId'> = { after: '', limit: 1, listId: '', suppressed: variant.suppressed ?? null, updatedSince: new Date(0) };
  return {
    name: `contacts.listing-page-${name}`,
    text,
    columns: ['contacts', 'lastEmail'],
    params,
    sample: (organizationId) => listingValues({ params }, { organizationId, ...samples }),
  };
}

/** The page statement of each walk (and of each combination of filters for the gathered `updatedSince`). */
export const LISTING_PAGE: Record<Exclude<ListingDriver, 'updated'>, ListingStatement> = {
  contacts: pageStatement({ driver: 'contacts' }),
  members: pageStatement({ driver: 'members' }),
  suppressions: pageStatement({ driver: 'suppressions' }),
};
export const LISTING_PAGE_UPDATED: ReadonlyArray<ListingStatement & { variant: { listId: boolean; suppressed: boolean | null } }> = [false, true].flatMap(
  (listId) => [null, true, false].map((suppressed) => ({ ...pageStatement({ driver: 'updated', listId, suppressed }), variant: { listId, suppressed } })),
);

/** The statement that reads a page through `driver` with these filters. */
export function listingStatement(driver: ListingDriver, filters: { listId: string | null; suppressed: boolean | null }): ListingStatement {
  if (driver !== 'updated') return LISTING_PAGE[driver];
  const found = LISTING_PAGE_UPDATED.find(({ variant }) => variant.listId === (filters.listId !== null) && variant.suppressed === filters.suppressed);
  if (!found) throw new Error('No gathered page statement for these filters');
  return found;
}

export const LISTING_STATEMENTS: readonly ListingStatement[] = [...Object.values(LISTING_PAGE), ...LISTING_PAGE_UPDATED];

/**
 * The bounded counts that choose a listing's walk (ContactListingRepository), each at most $5 and
 * only when asked for (else NULL, never run): the contacts of organization $1 updated since $2
 * (when $2 is not null), and when $4 (a list and `suppressed=true` together) the members of list $3
 * (none when the list is not the organization's) and the organization's suppressions.
 */
export const LISTING_COUNTS = defineStatement<{ updated: number | null; members: number | null; suppressions: number | null }>({
  name: 'contacts.listing-counts',
  text: `SELECT
        CASE WHEN $2::timestamptz IS NOT NULL THEN (SELECT count(*)::int FROM (
          SELECT 1 FROM contacts WHERE organization_id = $1 AND updated_at >= $2::timestamptz LIMIT $5::int) AS s) END AS updated,
        CASE WHEN $4::boolean THEN (SELECT count(*)::int FROM (
          SELECT 1 FROM list_memberships WHERE list_id = $3::text AND EXISTS (SELECT 1 FROM lists WHERE id = $3::text AND organization_id = $1)
          LIMIT $5::int) AS s) END AS members,
        CASE WHEN $4::boolean THEN (SELECT count(*)::int FROM (
          SELECT 1 FROM suppressions WHERE organization_id = $1 LIMIT $5::int) AS s) END AS suppressions`,
  columns: ['updated', 'members', 'suppressions'],
  sample: (organizationId) => [organizationId, null, null, false, 1],
});
