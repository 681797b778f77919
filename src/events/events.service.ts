import { Injectable } from '@nestjs/common';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError } from '../errors/request-error';
import { encodeFeedCursor, isBefore } from './event-cursor';
import { EventsFeedRepository } from './events-feed.repository';
import type { FeedQuery } from './feed-query';

export interface FeedPage {
  /** The page's events as PostgreSQL rendered them (EventsFeedRepository, FeedPageText). */
  chunks: string[];
  /**
   * The place after the last event returned; when the page is empty, the given one, or without
   * `after` the retention boundary (where the oldest kept event starts).
   */
  nextCursor: string;
}

@Injectable()
export class EventsService {
  constructor(private readonly feed: EventsFeedRepository) {}

  /**
   * A page of the feed. The retention boundary is read in the page's own snapshot (FEED_PAGE): a
   * sweep deletes events and moves the boundary in one transaction, so a page that misses events
   * the sweep deleted after `after` comes with the moved boundary, and is never answered as if
   * complete (410 instead).
   */
  async page(organizationId: string, query: FeedQuery): Promise<FeedPage> {
    const page = await this.feed.page(organizationId, query.after, query.limit, query.types);
    const pruned = page.pruned;
    const expired = pruned !== null && isBefore(query.after, pruned);
    if (query.resumed && expired) {
      throw new RequestError(RequestErrorCode.CURSOR_EXPIRED, 'Events after this cursor are past the retention period: start again without after');
    }
    // Without after the feed starts at the oldest kept event, i.e. at the retention boundary: an
    // empty page answers that boundary, never the very start, which the next call would refuse
    // with 410 (contract section 16: the cursor yields what committed since).
    const start = expired ? pruned : query.after;
    return { chunks: page.chunks, nextCursor: encodeFeedCursor(page.last ?? start) };
  }
}
