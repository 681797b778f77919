import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import type { FeedPlace } from './event-cursor';
import type { EventType } from './event-types';
import { EVENT_HORIZON, FEED_PAGE } from './events.statements';

/** A page of the feed as PostgreSQL rendered it. */
export interface FeedPageText {
  /**
   * The members of the page's JSON array, in commit order, in chunks of up to 100 events each
   * (comma-separated within a chunk; join the chunks with `,` and put them in `[…]`); none when the
   * page is empty.
   */
  chunks: string[];
  /** The place of the last event of the page; null when the page is empty. */
  last: FeedPlace | null;
  /**
   * The last event the retention sweep deleted for the organization (a cursor before it is
   * expired), read in the page's own snapshot; null when none was.
   */
  pruned: FeedPlace | null;
}

/**
 * Reads the feed: a registered statement on the pg pool (events.statements.ts), not Prisma Client,
 * because a page of 1,000 events is hot (docs/performance.md, "Events feed"). PostgreSQL renders
 * the page as JSON text, in chunks of 100 events: no row objects are built, parsed or serialized here.
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
   * ever follow `after`. `types`: only these (all when null). The retention boundary comes in the
   * page's statement (FEED_PAGE): no third round trip.
   */
  async page(organizationId: string, after: FeedPlace, limit: number, types: readonly EventType[] | null): Promise<FeedPageText> {
    const [{ horizon }] = await this.database.run(EVENT_HORIZON, [organizationId]);
    const rows = await this.database.run(FEED_PAGE, [organizationId, String(after.position), String(after.seq), limit, types, horizon]);
    // Unordered in SQL (FEED_PAGE): the chunks in the page's order.
    rows.sort((a, b) => (a.chunk ?? 0) - (b.chunk ?? 0));
    const [{ prunedPosition, prunedSeq }] = rows;
    const pruned = prunedPosition === null || prunedSeq === null ? null : { position: BigInt(prunedPosition), seq: BigInt(prunedSeq) };
    const last = rows[rows.length - 1];
    if (last.events === null || last.lastPosition === null || last.lastSeq === null) return { chunks: [], last: null, pruned };
    return {
      chunks: rows.map((row) => row.events as string),
      last: { position: BigInt(last.lastPosition), seq: BigInt(last.lastSeq) },
      pruned,
    };
  }
}
