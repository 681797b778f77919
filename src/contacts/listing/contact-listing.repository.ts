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

    const from: Record<Driver, Prisma.Sql> = {
      contacts: Prisma.sql`contacts c`,
      // Through the email: the members walk is index-only, and members next to each other in
      // email order find their contacts next to each other in contacts_organization_id_email_c_idx.
      members: Prisma.sql`list_memberships d JOIN contacts c ON c.organization_id = ${organizationId} AND c.email COLLATE "C" = d.email COLLATE "C"`,
      suppressions: Prisma.sql`suppressions d JOIN contacts c ON c.organization_id = d.organization_id AND c.email = d.email`,
      updated: Prisma.sql`contacts c`,
    };
    // The walked index's own columns: a range scan in its order.
    const key = driver === 'members' || driver === 'suppressions' ? Prisma.sql`d.email COLLATE "C"` : Prisma.sql`c.email COLLATE "C"`;
    const conditions: Prisma.Sql[] = [Prisma.sql`c.organization_id = ${organizationId}`];
    if (driver === 'members') conditions.push(Prisma.sql`d.list_id = ${listId}`);
    if (driver === 'suppressions') conditions.push(Prisma.sql`d.organization_id = ${organizationId}`);
    if (query.after !== null) conditions.push(Prisma.sql`${key} > ${query.after}`);
    // Repeated for the contacts when another table is walked: a merge join of both starts at the cursor too.
    if (query.after !== null && (driver === 'members' || driver === 'suppressions')) conditions.push(Prisma.sql`c.email COLLATE "C" > ${query.after}`);
    // The other filters probe by the walked row's own email where it has one (d.email), so a row
    // they reject is dropped before its contact is read.
    if (listId !== null && driver === 'suppressions') {
      // The cursor's bound repeated for the members: a merge of both walks starts at the cursor.
      const bound = query.after === null ? Prisma.empty : Prisma.sql` AND lm.email COLLATE "C" > ${query.after}`;
      conditions.push(
        Prisma.sql`EXISTS (SELECT 1 FROM list_memberships lm WHERE lm.list_id = ${listId} AND lm.email COLLATE "C" = d.email COLLATE "C"${bound})`,
      );
    } else if (listId !== null && driver !== 'members') {
      conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM list_memberships lm WHERE lm.contact_id = c.id AND lm.list_id = ${listId})`);
    }
    if (suppressed !== null && !(suppressed && driver === 'suppressions')) {
      const email = driver === 'members' ? Prisma.sql`d.email` : Prisma.sql`c.email`;
      const exists = Prisma.sql`EXISTS (SELECT 1 FROM suppressions ss WHERE ss.organization_id = ${organizationId} AND ss.email = ${email})`;
      conditions.push(suppressed ? exists : Prisma.sql`NOT ${exists}`);
    }
    if (updatedSince !== null) conditions.push(Prisma.sql`c.updated_at >= ${updatedSince}`);
    const where = Prisma.join(conditions, ' AND ');
    const limit = query.limit + 1;

    // The page's contacts first (ordered, limited), then their list ids and suppression: those
    // subqueries run for the returned rows only.
    const page =
      driver === 'updated'
        ? // Gathered through the updated_at index (MATERIALIZED: planned alone, without the LIMIT
          // that would make the planner walk email order), then sorted.
          // Only (id, email) are kept and sorted; the page's rows are read after.
          Prisma.sql`WITH matched AS MATERIALIZED (SELECT c.id, c.email FROM contacts c WHERE ${where}),
            chosen AS (SELECT id, email FROM matched ORDER BY email COLLATE "C" LIMIT ${limit}::int)
            SELECT c.* FROM chosen JOIN contacts c ON c.id = chosen.id`
        : Prisma.sql`SELECT c.* FROM ${from[driver]} WHERE ${where} ORDER BY ${key} LIMIT ${limit}::int`;
    const rows = await this.prisma.$queryRaw<ContactRow[]>`
      SELECT ${Prisma.raw(CONTACT_COLUMNS)}
      FROM (${page}) AS c
      ORDER BY c.email COLLATE "C"`;
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
