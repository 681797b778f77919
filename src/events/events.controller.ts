import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import { sendJsonPage } from '../common/json-page-response';
import { requestIdOf } from '../common/request-id';
import { ApiAnswer, ApiKeyAuth, ApiRequestError } from '../docs/openapi.decorators';
import { EventsPageModel } from './dto/events.dto';
import { EventsService } from './events.service';
import { parseFeedQuery } from './feed-query';
import { EVENT_TYPES } from './event-types';

@ApiTags('Events')
@ApiKeyAuth()
@Controller('api/v2/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @RequireScope('contacts:read')
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'The change events, in commit order',
    description:
      'Following `nextCursor` (as `after`), a reader receives every committed event exactly once, in commit order, however many ' +
      'writers commit concurrently and in whatever order they began (docs/events.md). Without `after`: from the oldest kept. Events ' +
      'are kept EVENT_RETENTION_DAYS (default 7); a cursor older than that is 410 CURSOR_EXPIRED.',
  })
  @ApiQuery({ name: 'after', required: false, type: String, description: 'The `nextCursor` of a previous page' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } })
  @ApiQuery({ name: 'types', required: false, type: String, description: `Comma-separated event types: ${EVENT_TYPES.join(', ')}` })
  @ApiAnswer(200, 'One page, oldest first', EventsPageModel)
  @ApiRequestError(403, 'INSUFFICIENT_SCOPE: the key lacks `contacts:read`')
  @ApiRequestError(400, "INVALID_REQUEST: limit not an integer 1–1000, an unknown event type or query parameter, a malformed cursor, or one this organization's feed never handed out")
  @ApiRequestError(410, 'CURSOR_EXPIRED: events after this cursor are past the retention period; start again without `after`')
  async list(@Caller() caller: CallerIdentity, @Req() req: Request, @Res() res: Response, @Query() query: Record<string, unknown>): Promise<void> {
    const page = await this.events.page(caller.organizationId, parseFeedQuery(query));
    // EventsPageModel, from the events PostgreSQL rendered (events.statements.ts, FEED_PAGE).
    sendJsonPage(res, { requestId: requestIdOf(req), itemsKey: 'events', chunks: page.chunks, nextCursor: page.nextCursor });
  }
}
