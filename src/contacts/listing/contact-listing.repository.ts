import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../database/prisma.service';
import { Prisma } from '../../generated/prisma/client';
import { type ContactRow, type StoredContact, toStoredContact } from '../contacts.repository';
import { CONTACT_COLUMNS } from '../contacts.statements';
import type { ListingQuery } from './listing-query';

/**
 * Up to this many contacts matching `updatedSince` are gathered through the (organization_id,
 * updated_at) index and sorted; beyond it, a page walks email order instead (docs/performance.md,
 * "Listing contacts": both cost about the same there at 1,000,000 contacts).
 */
export const GATHER_UPDATED_MAX = 30_000;

/** Where a page's contacts come from, in listing order (or gathered and sorted). */
export type ListingDriver = 'contacts' | 'members' | 'suppressions' | 'updated';
type Driver = ListingDriver;

/** The drivers that can serve these filters (each gives the same pages; they differ in cost). */
export function possibleDrivers(filters: ListingQuery['filters']): ListingDriver[] {
  return [
    'contacts',
    ...(filters.listId !== null ? (['members'] as const) : []),
    ...(filters.suppressed === true ? (['suppressions'] as const) : []),
    ...(filters.updatedSince !== null ? (['updated'] as const) : []),
  ];
}

/**
 * One page of GET /api/v2/contacts: keyset pagination on the normalized email in byte order
 * (COLLATE "C"), with each contact's list ids and suppression read in the same statement (never a
 * query per contact). The email is unique and never changes, so a walk that follows the cursors
 * visits every contact that exists for the whole walk exactly once, whatever is inserted or
 * deleted meanwhile.
 *
 * A page reads only what it returns, or close to it, whatever the filters: it walks, in listing
 * order, the sparsest of the organization's contacts (contacts_organization_id_email_c_idx), the
 * list's members (list_memberships_list_id_email_c_idx: a membership keeps its contact's email)
 * or the organization's suppressions (suppressions_organization_id_email_c_idx), and checks the
 * other filters per row through primary keys; a selective `updatedSince` instead gathers its
 * matches through contacts_organization_id_updated_at_idx and sorts them. Which one is decided
 * here, from bounded counts, not left to the planner's estimates (which cannot see how filters
 * combine).
 */
@Injectable()
export class ContactListingRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Whether the list belongs to the organization (archived or not). */
  async listExists(organizationId: string, listId: string): Promise<boolean> {
    return (await this.prisma.list.count({ where: { id: listId, organizationId } })) > 0;
  }

  /** Up to `limit` contacts after the cursor, and whether more follow. */
  async page(organizationId: string, query: ListingQuery): Promise<{ contacts: StoredContact[]; more: boolean }> {
    return this.pageBy(await this.driver(organizationId, query), organizationId, query);
  }

  /** The page read through `driver` (one of possibleDrivers: the choice is page's; tests try each). */
  async pageBy(driver: ListingDriver, organizationId: string, query: ListingQuery): Promise<{ contacts: StoredContact[]; more: boolean }> {
    const { listId, suppressed, updatedSince } = query.filters;
    if (!possibleDrivers(query.filters).includes(driver)) throw new Error(`The ${driver} walk cannot serve these filters`);
    const limit = query.limit + 1;
    const after = (email: Prisma.Sql) => (query.after === null ? Prisma.empty : Prisma.sql` AND ${email} COLLATE "C" > ${query.after}`);

    // The filters that the walk does not serve, as probes made per walked row, in walk order,
    // through a key (`id`: the contact's id; `email`: the walked row's own email, so a row a probe
    // rejects is dropped before its contact is read). OFFSET 0 keeps each EXISTS a per-row probe:
    // without it the planner may turn it into a join that reads every match after the cursor
    // (a hash of the list's members or of the suppressions) and sorts them, which it did whenever
    // its estimates said the filters were sparse (docs/performance.md, "Listing contacts": third pass).
    const probes = (keys: { id?: Prisma.Sql; email: Prisma.Sql }, perRow = true): Prisma.Sql[] => {
      const offset = perRow ? Prisma.sql` OFFSET 0` : Prisma.empty;
      const probe: Prisma.Sql[] = [];
      if (listId !== null && driver !== 'members') {
        probe.push(
          keys.id
            ? Prisma.sql`EXISTS (SELECT 1 FROM list_memberships lm WHERE lm.contact_id = ${keys.id} AND lm.list_id = ${listId}${offset})`
            : // Not per row: the cursor's bound too, so that the planner can hash the list's members after the cursor.
              Prisma.sql`EXISTS (SELECT 1 FROM list_memberships lm WHERE lm.list_id = ${listId} AND lm.email COLLATE "C" = ${keys.email} COLLATE "C"${perRow ? offset : after(Prisma.sql`lm.email`)})`,
        );
      }
      if (suppressed !== null && !(suppressed && driver === 'suppressions')) {
        const exists = Prisma.sql`EXISTS (SELECT 1 FROM suppressions ss WHERE ss.organization_id = ${organizationId} AND ss.email = ${keys.email}${offset})`;
        probe.push(suppressed ? exists : Prisma.sql`NOT ${exists}`);
      }
      return probe;
    };
    const and = (conditions: Prisma.Sql[]) => (conditions.length === 0 ? Prisma.empty : Prisma.sql` AND ${Prisma.join(conditions, ' AND ')}`);
    const updated = updatedSince === null ? Prisma.empty : Prisma.sql` AND c.updated_at >= ${updatedSince}`;

    // The page's contacts (ordered, limited), then their list ids and suppression: those
    // subqueries run for the returned rows only.
    let page: Prisma.Sql;
    if (driver === 'contacts') {
      // The organization's contacts in email order (contacts_organization_id_email_c_idx).
      page = Prisma.sql`SELECT c.* FROM contacts c
        WHERE c.organization_id = ${organizationId}${after(Prisma.sql`c.email`)}${updated}${and(probes({ id: Prisma.sql`c.id`, email: Prisma.sql`c.email` }))}
        ORDER BY c.email COLLATE "C" LIMIT ${limit}::int`;
    } else if (driver === 'updated') {
      // Gathered through contacts_organization_id_updated_at_idx (MATERIALIZED: planned alone,
      // without the LIMIT that would make the planner walk email order), only (id, email), with the
      // other filters as the planner sees fit (at up to GATHER_UPDATED_MAX rows, a hash of the
      // list's members after the cursor, index-only, beats a probe per row: 11k buffers instead of
      // 40k for the 10% list and the last day), sorted, then the page's rows read.
      page = Prisma.sql`WITH matched AS MATERIALIZED (
          SELECT c.id, c.email FROM contacts c
          WHERE c.organization_id = ${organizationId}${updated}${after(Prisma.sql`c.email`)}${and(probes({ email: Prisma.sql`c.email` }, false))}
        ),
        chosen AS (SELECT id, email FROM matched ORDER BY email COLLATE "C" LIMIT ${limit}::int)
        SELECT c.* FROM chosen JOIN contacts c ON c.id = chosen.id`;
    } else {
      // The list's members (list_memberships_list_id_email_c_idx, index-only) or the
      // organization's suppressions (suppressions_organization_id_email_c_idx) in email order,
      // each walked row's contact found by its email, one probe per row (LATERAL ... LIMIT 1:
      // never a join that reads the contacts after the cursor and sorts them).
      const walk =
        driver === 'members'
          ? Prisma.sql`list_memberships d WHERE d.list_id = ${listId}`
          : Prisma.sql`suppressions d WHERE d.organization_id = ${organizationId}`;
      const contact =
        driver === 'members'
          ? Prisma.sql`c.email COLLATE "C" = d.email COLLATE "C"`
          : Prisma.sql`c.email = d.email`;
      page = Prisma.sql`SELECT c.* FROM (
          SELECT d.email FROM ${walk}${after(Prisma.sql`d.email`)}${and(probes({ email: Prisma.sql`d.email` }))}
          ORDER BY d.email COLLATE "C"
        ) AS d
        CROSS JOIN LATERAL (
          SELECT c.* FROM contacts c WHERE c.organization_id = ${organizationId} AND ${contact}${updated} LIMIT 1
        ) AS c
        ORDER BY d.email COLLATE "C" LIMIT ${limit}::int`;
    }
    // Never a parallel plan for a page (SET LOCAL: this transaction only, not the pool's other
    // statements). A page reads a few thousand buffers in index order; a Gather (Merge) adds
    // worker processes that start cold (each touches shared buffers for the first time) and took
    // 200-400 ms to start under load, several times the page's own work (docs/performance.md,
    // "Listing contacts": third pass).
    const [, rows] = await this.prisma.$transaction([
      this.prisma.$executeRaw`SET LOCAL max_parallel_workers_per_gather = 0`,
      this.prisma.$queryRaw<ContactRow[]>`
      SELECT ${Prisma.raw(CONTACT_COLUMNS)}
      FROM (${page}) AS c
      ORDER BY c.email COLLATE "C"`,
    ]);
    const more = rows.length > query.limit;
    return { contacts: rows.slice(0, query.limit).map(toStoredContact), more };
  }

  /**
   * The walk (or gathering) that reads the fewest rows for these filters. Unfiltered, by list or
   * by suppression alone this needs no statement; with `updatedSince`, or a list and
   * `suppressed=true` together, one statement of bounded index-only counts decides.
   */
  private async driver(organizationId: string, query: ListingQuery): Promise<Driver> {
    const { listId, suppressed, updatedSince } = query.filters;
    const bySuppression = suppressed === true;
    if (updatedSince === null && !(listId !== null && bySuppression)) {
      return listId !== null ? 'members' : bySuppression ? 'suppressions' : 'contacts';
    }
    const bound = GATHER_UPDATED_MAX + 1;
    const count = (set: Prisma.Sql) => Prisma.sql`(SELECT count(*)::int FROM (${set} LIMIT ${bound}::int) AS s)`;
    const none = Prisma.sql`NULL::int`;
    const [counts] = await this.prisma.$queryRaw<Array<{ updated: number | null; members: number | null; suppressions: number | null }>>`
      SELECT
        ${updatedSince === null ? none : count(Prisma.sql`SELECT 1 FROM contacts WHERE organization_id = ${organizationId} AND updated_at >= ${updatedSince}`)} AS updated,
        ${listId !== null && bySuppression ? count(Prisma.sql`SELECT 1 FROM list_memberships WHERE list_id = ${listId}`) : none} AS members,
        ${listId !== null && bySuppression ? count(Prisma.sql`SELECT 1 FROM suppressions WHERE organization_id = ${organizationId}`) : none} AS suppressions`;
    if (counts.updated !== null && counts.updated <= GATHER_UPDATED_MAX) return 'updated';
    if (listId !== null && bySuppression) return (counts.suppressions ?? 0) < (counts.members ?? 0) ? 'suppressions' : 'members';
    return listId !== null ? 'members' : bySuppression ? 'suppressions' : 'contacts';
  }
}
