import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../src/database/prisma.service';
import type { Prisma } from '../../src/generated/prisma/client';

export interface ListCopy {
  id: string;
  name: string;
  members: number;
}

/** The only place that reads or writes for list copies: Prisma Client, on the one pg pool. */
@Injectable()
export class ListCopiesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Runs `work` in one interactive transaction: all of it is written, or none of it. */
  transaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(work);
  }

  /** The organization's list with this id, archived or not (a foreign id finds nothing). */
  findList(tx: Prisma.TransactionClient, organizationId: string, id: string): Promise<{ id: string } | null> {
    return tx.list.findFirst({ where: { id, organizationId }, select: { id: true } });
  }

  /** A new list: its id and created_at come from the database defaults. */
  createList(tx: Prisma.TransactionClient, organizationId: string, name: string): Promise<{ id: string; name: string }> {
    return tx.list.create({ data: { organizationId, name }, select: { id: true, name: true } });
  }

  /** Every member of `fromListId` joins `toListId`, set-based: one statement whatever the size. */
  copyMembers(tx: Prisma.TransactionClient, fromListId: string, toListId: string): Promise<number> {
    return tx.$executeRaw`
      INSERT INTO list_memberships (contact_id, list_id, email)
      SELECT contact_id, ${toListId}, email FROM list_memberships WHERE list_id = ${fromListId}`;
  }
}
