import { Injectable } from '@nestjs/common';
import { isStorableText } from '../common/storable-text';
import { PrismaService } from '../database/prisma.service';
import { EventsRepository } from '../events/events.repository';
import type { PrismaClient } from '../generated/prisma/client';
import type { ListView } from './list-view';

/** What PATCH /api/v2/lists/{id} may change; absent keys are kept. */
export interface ListChange {
  name?: string;
  archived?: boolean;
}

const LIST_VIEW = { id: true, name: true, archived: true } as const;

/**
 * Lists through Prisma Client. Every change writes its event (`list.created`, `list.updated`,
 * `data.list` as the API shows it after the change) in the same transaction; a change that
 * changes nothing writes neither.
 */
@Injectable()
export class ListsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly events: EventsRepository,
  ) {}

  /** Every list of the organization, archived ones included, oldest first (docs/api.md, GET /api/v2/lists). */
  findAll(organizationId: string): Promise<ListView[]> {
    return this.prisma.list.findMany({
      where: { organizationId },
      select: { id: true, name: true, archived: true },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  }

  /** A new, unarchived list (POST /api/v2/lists, admin `list create`). */
  create(organizationId: string, name: string, requestId: string | null): Promise<ListView> {
    return createList(this.prisma, this.events, organizationId, name, requestId);
  }

  /**
   * Renames, archives or unarchives one list of the organization (PATCH /api/v2/lists/{id});
   * memberships are untouched. Read under a row lock and compared: a PATCH that sends what is
   * stored writes nothing (no event). Undefined when the organization has no list with this id.
   */
  async update(organizationId: string, id: string, change: ListChange, requestId: string | null): Promise<ListView | undefined> {
    // An id PostgreSQL cannot be sent (U+0000, lone surrogate) names no list.
    if (!isStorableText(id)) return undefined;
    return this.prisma.$transaction(async (tx) => {
      // The organization is part of the condition, so another's list is never touched. NO KEY: the
      // lock the UPDATE takes anyway, so membership inserts (their foreign-key check) never wait on it.
      // Raw: Prisma Client's API has no row locks.
      const [current] = await tx.$queryRaw<ListView[]>`
        SELECT id, name, archived FROM lists WHERE id = ${id} AND organization_id = ${organizationId} FOR NO KEY UPDATE`;
      if (!current) return undefined;
      const next: ListView = { id: current.id, name: change.name ?? current.name, archived: change.archived ?? current.archived };
      if (next.name === current.name && next.archived === current.archived) return current;
      const list = await tx.list.update({ where: { id }, data: { name: next.name, archived: next.archived }, select: LIST_VIEW });
      await this.events.record(tx, [listEvent(organizationId, 'list.updated', list, requestId)]);
      return list;
    });
  }
}

/** A list and its `list.created` event in one transaction (the API and the admin command line). */
export function createList(
  prisma: PrismaClient,
  events: EventsRepository,
  organizationId: string,
  name: string,
  requestId: string | null,
): Promise<ListView> {
  return prisma.$transaction(async (tx) => {
    const list = await tx.list.create({ data: { organizationId, name }, select: LIST_VIEW });
    await events.record(tx, [listEvent(organizationId, 'list.created', list, requestId)]);
    return list;
  });
}

export function listEvent(organizationId: string, type: 'list.created' | 'list.updated', list: ListView, requestId: string | null) {
  return { organizationId, type, requestId, contactId: null, email: null, data: { list: { id: list.id, name: list.name, archived: list.archived } } };
}
