import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma } from '../generated/prisma/client';
import type { NewEvent } from './event-types';

/**
 * The events' tables. Writing: `record` in the caller's transaction, so an event exists exactly
 * when its change does (the transactional outbox of contract section 14). The commit position that
 * orders the feed is taken at COMMIT by the database (migration 20261124060000_events,
 * docs/events.md), never here.
 */
@Injectable()
export class EventsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Writes `events` in the caller's open transaction `tx` (one statement, in the given order:
   * their `seq` follows it). Nothing to write, no statement.
   */
  async record(tx: Prisma.TransactionClient, events: readonly NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    await tx.event.createMany({ data: events.map(toEventRow) });
  }
}

/** The row of a new event (id, seq, occurred_at and xid come from the database defaults). */
export function toEventRow(event: NewEvent): Prisma.EventCreateManyInput {
  return {
    organizationId: event.organizationId,
    type: event.type,
    requestId: event.requestId ?? null,
    contactId: event.contactId ?? null,
    email: event.email ?? null,
    data: event.data as unknown as Prisma.InputJsonValue,
  };
}
