import { Injectable } from '@nestjs/common';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError } from '../errors/request-error';
import { encodeFeedCursor, isBefore } from './event-cursor';
import { EventsFeedRepository } from './events-feed.repository';
import type { FeedQuery } from './feed-query';

export interface FeedPage {
  /** The page's events as PostgreSQL rendered them (EventsFeedRepository, FeedPageText). */
  chunks: string[];
  /** The place after the last event returned, or the given one when the page is empty. */
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
    if (query.resumed) {
      if (page.pruned && isBefore(query.after, page.pruned)) {
        throw new RequestError(RequestErrorCode.CURSOR_EXPIRED, 'Events after this cursor are past the retention period: start again without after');
      }
    }
    return { chunks: page.chunks, nextCursor: encodeFeedCursor(page.last ?? query.after) };
  }
}
