import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../database/prisma.service';
import { Prisma } from '../../generated/prisma/client';
import { type ContactRow, type StoredContact, toStoredContact } from '../contacts.repository';
import { STANDARD_COLUMNS } from '../contacts.statements';
import type { ListingQuery } from './listing-query';

/**
 * One page of GET /api/v2/contacts in ONE statement, whatever its size: keyset pagination on the
 * normalized email in byte order (COLLATE "C", served by the index contacts_organization_id_email_c_idx),
 * with each contact's list ids and suppression read in the same statement (never a query per contact).
 * The email is unique and never changes, so a walk that follows the cursors visits every contact
 * that exists for the whole walk exactly once, whatever is inserted or deleted meanwhile.
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
    const { listId, suppressed, updatedSince } = query.filters;
    const conditions: Prisma.Sql[] = [Prisma.sql`c.organization_id = ${organizationId}`];
    if (query.after !== null) conditions.push(Prisma.sql`c.email COLLATE "C" > ${query.after}`);
    if (listId !== null) {
      conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM list_memberships lm WHERE lm.contact_id = c.id AND lm.list_id = ${listId})`);
    }
    if (suppressed !== null) {
      const exists = Prisma.sql`EXISTS (SELECT 1 FROM suppressions ss WHERE ss.organization_id = c.organization_id AND ss.email = c.email)`;
      conditions.push(suppressed ? exists : Prisma.sql`NOT ${exists}`);
    }
    if (updatedSince !== null) conditions.push(Prisma.sql`c.updated_at >= ${updatedSince}`);

    const rows = await this.prisma.$queryRaw<ContactRow[]>`
      SELECT c.id, c.email, ${Prisma.raw(STANDARD_COLUMNS.map((column) => `c.${column}`).join(', '))},
             c.custom_fields, c.created_at, c.updated_at,
             COALESCE(
               (SELECT array_agg(m.list_id ORDER BY m.created_at, m.list_id) FROM list_memberships m WHERE m.contact_id = c.id),
               '{}'
             ) AS list_ids,
             (SELECT s.reason::text FROM suppressions s
               WHERE s.organization_id = c.organization_id AND s.email = c.email) AS suppression_reason
      FROM contacts c
      WHERE ${Prisma.join(conditions, ' AND ')}
      ORDER BY c.email COLLATE "C"
      LIMIT ${query.limit + 1}::int`;
    const more = rows.length > query.limit;
    return { contacts: rows.slice(0, query.limit).map(toStoredContact), more };
  }
}
