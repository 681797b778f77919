import { Injectable } from '@nestjs/common';
import { RequestErrorCode } from '../errors/error-codes';
import { invalidRequest, RequestError } from '../errors/request-error';
import { encodeFeedCursor, isBefore, organizationTag } from './event-cursor';
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
    const { after } = query;
    // Places are shared by every organization's feed: another one's cursor would skip events here.
    if (after.organizationTag !== null && after.organizationTag !== organizationTag(organizationId)) {
      throw invalidRequest("after is a cursor of another organization's feed");
    }
    const page = await this.feed.page(organizationId, after, query.limit, query.types);
    // An empty page was read up to a fresh horizon, at or above every place a page ever ended at:
    // a cursor beyond it was never handed out, and waiting at it would skip the events below it.
    if (page.last === null && after.position > page.horizon) {
      throw invalidRequest('after is not a cursor this endpoint returned (it is ahead of every event)');
    }
    const pruned = page.pruned;
    const expired = pruned !== null && isBefore(after, pruned);
    if (query.resumed && expired) {
      throw new RequestError(RequestErrorCode.CURSOR_EXPIRED, 'Events after this cursor are past the retention period: start again without after');
    }
    // Without after the feed starts at the oldest kept event, i.e. at the retention boundary: an
    // empty page answers that boundary, never the very start, which the next call would refuse
    // with 410 (contract section 16: the cursor yields what committed since).
    const start = expired ? pruned : after;
    return { chunks: page.chunks, nextCursor: encodeFeedCursor(page.last ?? start, organizationId) };
  }
}
