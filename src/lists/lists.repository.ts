import { Injectable } from '@nestjs/common';
import { isStorableText } from '../common/storable-text';
import { PrismaService } from '../database/prisma.service';
import { Prisma } from '../generated/prisma/client';

export interface ListView {
  id: string;
  name: string;
  archived: boolean;
}

/** What PATCH /api/v2/lists/{id} may change; absent keys are kept. */
export interface ListChange {
  name?: string;
  archived?: boolean;
}

const LIST_VIEW = { id: true, name: true, archived: true } as const;

@Injectable()
export class ListsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Every list of the organization, archived ones included, oldest first (docs/api.md, GET /api/v2/lists). */
  findAll(organizationId: string): Promise<ListView[]> {
    return this.prisma.list.findMany({
      where: { organizationId },
      select: { id: true, name: true, archived: true },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  }

  /** A new, unarchived list (POST /api/v2/lists). */
  create(organizationId: string, name: string): Promise<ListView> {
    return this.prisma.list.create({ data: { organizationId, name }, select: LIST_VIEW });
  }

  /**
   * Renames, archives or unarchives one list of the organization (PATCH /api/v2/lists/{id});
   * memberships are untouched. Undefined when the organization has no list with this id.
   */
  async update(organizationId: string, id: string, change: ListChange): Promise<ListView | undefined> {
    // An id PostgreSQL cannot be sent (U+0000, lone surrogate) names no list.
    if (!isStorableText(id)) return undefined;
    try {
      // One statement: the organization is part of the condition, so another's list is never touched.
      return await this.prisma.list.update({ where: { id, organizationId }, data: change, select: LIST_VIEW });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') return undefined;
      throw error;
    }
  }
}
