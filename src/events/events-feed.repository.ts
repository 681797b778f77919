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
  /**
   * The horizon the page was read up to. When the page is empty it is a fresh one, taken while no
   * commit of the organization was in progress: every place a page has ever ended at is at or below it.
   */
  horizon: bigint;
}

/** Organizations whose last known horizon is kept; past it the memory starts again (a horizon is only a shortcut). */
const HORIZONS_KEPT = 10_000;

/**
 * Reads the feed: a registered statement on the pg pool (events.statements.ts), not Prisma Client,
 * because a page of 1,000 events is hot and Prisma would build, decode and serialize a row object
 * for each. PostgreSQL joins
 * the events' stored JSON texts, in chunks of 100 events: no row objects are built, parsed or serialized here.
 */
@Injectable()
export class EventsFeedRepository {
  /**
   * The highest horizon learned per organization (EVENT_HORIZON, or a page's `nextHorizon`). A
   * horizon stays valid for ever (every position at or below it is final), so any of them may bound
   * a LATER statement's page; a newer one only lets the page reach further.
   */
  private readonly horizons = new Map<string, bigint>();

  constructor(private readonly database: Database) {}

  /**
   * Up to `limit` committed events of the organization after `after`, in commit order: by their
   * transaction's commit position (event_commits, taken at COMMIT), then by seq within it, read up
   * to a horizon of the organization learned in an EARLIER statement (docs/events.md, "How it is
   * kept"): every position up to it is visible or gone for good, so what the page reads is a prefix
   * of what will ever follow `after`. `types`: only these (all when null). The retention boundary
   * comes in the page's statement (FEED_PAGE).
   *
   * One round trip when the organization's last known horizon gives a full page: the first `limit`
   * events up to an older horizon are the first `limit` up to any newer one (every position above it
   * comes after every position at or below it). A short page is read again up to a fresh horizon:
   * the one the page statement learned when no commit was in progress (two round trips, as
   * before), else after EVENT_HORIZON, which waits for the commits in progress (three).
   */
  async page(organizationId: string, after: FeedPlace, limit: number, types: readonly EventType[] | null): Promise<FeedPageText> {
    const known = this.horizons.get(organizationId);
    if (known !== undefined) {
      const page = await this.read(organizationId, after, limit, types, known);
      if (page.count === limit || page.nextHorizon === known) return page.text;
      if (page.nextHorizon !== null) return (await this.read(organizationId, after, limit, types, page.nextHorizon)).text;
    }
    const [{ horizon }] = await this.database.run(EVENT_HORIZON, [organizationId]);
    this.learn(organizationId, BigInt(horizon));
    return (await this.read(organizationId, after, limit, types, BigInt(horizon))).text;
  }

  /** One FEED_PAGE up to `horizon`; keeps the horizon it learned for the next pages. */
  private async read(
    organizationId: string,
    after: FeedPlace,
    limit: number,
    types: readonly EventType[] | null,
    horizon: bigint,
  ): Promise<{ text: FeedPageText; count: number; nextHorizon: bigint | null }> {
    const rows = await this.database.run(FEED_PAGE, [organizationId, String(after.position), String(after.seq), limit, types, String(horizon)]);
    // Unordered in SQL (FEED_PAGE): the chunks in the page's order.
    rows.sort((a, b) => (a.chunk ?? 0) - (b.chunk ?? 0));
    const [{ prunedPosition, prunedSeq, nextHorizon }] = rows;
    const next = nextHorizon === null ? null : BigInt(nextHorizon);
    if (next !== null) this.learn(organizationId, next);
    const pruned = prunedPosition === null || prunedSeq === null ? null : { position: BigInt(prunedPosition), seq: BigInt(prunedSeq) };
    const last = rows[rows.length - 1];
    if (last.events === null || last.lastPosition === null || last.lastSeq === null) {
      return { text: { chunks: [], last: null, pruned, horizon }, count: 0, nextHorizon: next };
    }
    return {
      text: { chunks: rows.map((row) => row.events) as string[], last: { position: BigInt(last.lastPosition), seq: BigInt(last.lastSeq) }, pruned, horizon },
      count: rows.reduce((sum, row) => sum + (row.eventCount ?? 0), 0),
      nextHorizon: next,
    };
  }

  private learn(organizationId: string, horizon: bigint): void {
    const known = this.horizons.get(organizationId);
    if (known !== undefined && known >= horizon) return;
    if (known === undefined && this.horizons.size >= HORIZONS_KEPT) this.horizons.clear();
    this.horizons.set(organizationId, horizon);
  }
}
