import { Injectable } from '@nestjs/common';
import { isStorableText } from '../common/storable-text';
import { Database } from '../database/database';
import { PrismaService } from '../database/prisma.service';
import { runIn, type SqlClient } from '../database/statements';
import { EventsRepository } from '../events/events.repository';
import type { ListView } from './list-view';
import { ARCHIVE_LIST, INSERT_LIST, LIST_FOR_UPDATE, UPDATE_LIST } from './lists.statements';

/** What PATCH /api/v2/lists/{id} may change; absent keys are kept. */
export interface ListChange {
  name?: string;
  archived?: boolean;
}

/**
 * Lists: reads through Prisma Client; every change writes its event (`list.created`,
 * `list.updated`, `data.list` as the API shows it after the change) in the same transaction
 * (registered statements in `Database.transaction`, lists.statements.ts); a change that changes
 * nothing writes neither.
 */
@Injectable()
export class ListsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly database: Database,
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
    return createList(this.database, this.events, organizationId, name, requestId);
  }

  /**
   * Renames, archives or unarchives one list of the organization (PATCH /api/v2/lists/{id});
   * memberships are untouched. Read under a row lock and compared: a PATCH that sends what is
   * stored writes nothing (no event). Undefined when the organization has no list with this id.
   */
  async update(organizationId: string, id: string, change: ListChange, requestId: string | null): Promise<ListView | undefined> {
    // An id PostgreSQL cannot be sent (U+0000, lone surrogate) names no list.
    if (!isStorableText(id)) return undefined;
    return this.database.transaction(async (tx) => {
      // The organization is part of the condition, so another's list is never touched.
      const [current] = await runIn(tx, LIST_FOR_UPDATE, [id, organizationId]);
      if (!current) return undefined;
      const next: ListView = { id: current.id, name: change.name ?? current.name, archived: change.archived ?? current.archived };
      if (next.name === current.name && next.archived === current.archived) return current;
      const [list] = await runIn(tx, UPDATE_LIST, [id, next.name, next.archived]);
      await this.events.record(tx, [listEvent(organizationId, 'list.updated', list, requestId)]);
      return list;
    });
  }

  /**
   * Archives a list of any organization (admin `list archive`), with its `list.updated` event when
   * it changed (archiving twice is no change). Undefined when there is no list with this id.
   */
  async archive(id: string): Promise<ListView | undefined> {
    if (!isStorableText(id)) return undefined;
    const archived = await this.database.transaction(async (tx) => {
      const [list] = await runIn(tx, ARCHIVE_LIST, [id]);
      if (list) await this.events.record(tx, [listEvent(list.organizationId, 'list.updated', list, null)]);
      return list;
    });
    if (archived) return { id: archived.id, name: archived.name, archived: archived.archived };
    return (await this.prisma.list.findUnique({ where: { id }, select: { id: true, name: true, archived: true } })) ?? undefined;
  }
}

/** A list and its `list.created` event in one transaction (the API and the admin command line). */
export function createList(
  database: Database,
  events: EventsRepository,
  organizationId: string,
  name: string,
  requestId: string | null,
): Promise<ListView> {
  return database.transaction((tx) => insertList(tx, events, organizationId, name, requestId));
}

/** A list and its `list.created` event in the caller's transaction `tx` (createList, the demo data). */
export async function insertList(
  tx: SqlClient,
  events: EventsRepository,
  organizationId: string,
  name: string,
  requestId: string | null,
): Promise<ListView> {
  const [list] = await runIn(tx, INSERT_LIST, [organizationId, name]);
  await events.record(tx, [listEvent(organizationId, 'list.created', list, requestId)]);
  return list;
}

export function listEvent(organizationId: string, type: 'list.created' | 'list.updated', list: ListView, requestId: string | null) {
  return { organizationId, type, requestId, contactId: null, email: null, data: { list: { id: list.id, name: list.name, archived: list.archived } } };
}
