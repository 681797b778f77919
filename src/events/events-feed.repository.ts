import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import type { FeedPlace } from './event-cursor';
import type { EventType, EventView } from './event-types';
import { EVENT_HORIZON, FEED_PAGE } from './events.statements';

/** One event of the feed, with its place (commit position, seq). */
export interface FeedEvent {
  place: FeedPlace;
  event: EventView;
}

/**
 * Reads the feed: a registered statement on the pg pool (events.statements.ts), not Prisma Client,
 * because a page of 1,000 events is hot (docs/performance.md, "Events feed").
 */
@Injectable()
export class EventsFeedRepository {
  constructor(private readonly database: Database) {}

  /**
   * Up to `limit` committed events of the organization after `after`, in commit order: by their
   * transaction's commit position (event_commits, taken at COMMIT), then by seq within it. Two
   * statements (docs/events.md, "How it is kept"): the organization's horizon first (it waits for
   * the organization's commits in progress), then the page up to it, in a new snapshot: every
   * position up to the horizon is visible or gone for good, so what it reads is a prefix of what will
   * ever follow `after`. `types`: only these (all when null).
   */
  async page(organizationId: string, after: FeedPlace, limit: number, types: readonly EventType[] | null): Promise<FeedEvent[]> {
    const [{ horizon }] = await this.database.run(EVENT_HORIZON, [organizationId]);
    const rows = await this.database.run(FEED_PAGE, [organizationId, String(after.position), String(after.seq), limit, types, horizon]);
    return rows.map((row) => ({
      place: { position: BigInt(row.position), seq: BigInt(row.seq) },
      event: { id: row.id, type: row.type, occurredAt: row.occurredAt, requestId: row.requestId, data: row.data },
    }));
  }
}
