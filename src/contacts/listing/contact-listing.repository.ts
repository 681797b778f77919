import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database';
import { PrismaService } from '../../database/prisma.service';
import { Prisma } from '../../generated/prisma/client';
import type { ListingQuery } from './listing-query';
import { type ListingDriver, listingStatement, listingValues } from './listing.statements';

export type { ListingDriver } from './listing.statements';

/** A page as PostgreSQL rendered it (listing.statements.ts). */
export interface ListingPageText {
  /**
   * The members of the page's `contacts` array, in listing order, in chunks of up to 100 contacts
   * (comma-separated within a chunk; join the chunks with `,` and put them in `[…]`); none when the
   * page is empty.
   */
  chunks: string[];
  /** Whether contacts follow this page (then `lastEmail` makes the next cursor). */
  more: boolean;
  /** The email of the page's last contact; null when the page is empty. */
  lastEmail: string | null;
}

/**
 * Up to this many contacts matching `updatedSince` are gathered through the (organization_id,
 * updated_at) index and sorted; beyond it, a page walks email order instead, which from about
 * this many matches on costs no more than gathering and sorting them.
 */
export const GATHER_UPDATED_MAX = 30_000;

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
 *
 * The page itself is a registered statement on the pg pool (listing.statements.ts), not Prisma
 * Client, because a page of 1,000 is hot: PostgreSQL renders the contacts as JSON text in chunks of 100, so no row objects are built,
 * decoded or serialized here; it also checks `listId` (no round trip of its own). The choice of walk
 * stays on Prisma Client.
 */
@Injectable()
export class ContactListingRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly database: Database,
  ) {}

  /**
   * Up to `limit` contacts after the cursor, rendered, and whether more follow; null when `listId`
   * names no list of the organization (archived lists are lists), checked by the page statement itself.
   */
  async page(organizationId: string, query: ListingQuery): Promise<ListingPageText | null> {
    return this.pageBy(await this.driver(organizationId, query), organizationId, query);
  }

  /**
   * The page read through `driver` (one of possibleDrivers: the choice is page's; tests try each):
   * one registered statement on the pg pool (listing.statements.ts), one round trip, no transaction.
   */
  async pageBy(driver: ListingDriver, organizationId: string, query: ListingQuery): Promise<ListingPageText | null> {
    if (!possibleDrivers(query.filters).includes(driver)) throw new Error(`The ${driver} walk cannot serve these filters`);
    const statement = listingStatement(driver, query.filters);
    const rows = await this.database.run(
      statement,
      listingValues(statement, { organizationId, after: query.after ?? '', limit: query.limit, ...query.filters }),
    );
    if (rows.length === 1 && rows[0].contacts === null && rows[0].lastEmail === null) return null;
    const more = rows.length > 0 && rows[rows.length - 1].contacts === null;
    const chunks = rows.flatMap((row) => (row.contacts === null ? [] : [row]));
    return { chunks: chunks.map((row) => row.contacts) as string[], more, lastEmail: chunks.at(-1)?.lastEmail ?? null };
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
        ${listId !== null && bySuppression ? count(Prisma.sql`SELECT 1 FROM list_memberships WHERE list_id = ${listId} AND EXISTS (SELECT 1 FROM lists WHERE id = ${listId} AND organization_id = ${organizationId})`) : none} AS members,
        ${listId !== null && bySuppression ? count(Prisma.sql`SELECT 1 FROM suppressions WHERE organization_id = ${organizationId}`) : none} AS suppressions`;
    if (counts.updated !== null && counts.updated <= GATHER_UPDATED_MAX) return 'updated';
    if (listId !== null && bySuppression) return (counts.suppressions ?? 0) < (counts.members ?? 0) ? 'suppressions' : 'members';
    return listId !== null ? 'members' : bySuppression ? 'suppressions' : 'contacts';
  }
}
