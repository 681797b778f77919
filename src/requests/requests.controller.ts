import { Controller, Get, Param, Req } from '@nestjs/common';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { requestIdOf } from '../common/request-id';
import { DomainError } from '../errors/domain-error';
import { RequestErrorCode } from '../errors/error-codes';
import { StoredResponsesRepository, type StoredAnswer } from './stored-responses.repository';

/** GET /api/v2/requests/{request_id}: what a POST of this organization answered (contract section 11). */
@Controller('api/v2/requests')
export class RequestsController {
  constructor(private readonly responses: StoredResponsesRepository) {}

  // The parameter is named as in the OpenAPI document's path, which the docs test matches against.
  @Get(':request_id')
  async findOne(
    @Caller() caller: CallerIdentity,
    @Req() req: Request,
    @Param('request_id') requestId: string,
  ): Promise<{ request_id: string; original: StoredAnswer }> {
    const original = await this.responses.find(caller.organizationId, requestId);
    // Unknown, expired, malformed and another organization's ids are indistinguishable.
    if (!original) {
      throw new DomainError(RequestErrorCode.REQUEST_NOT_FOUND, 'No stored response for this request id in this organization');
    }
    return { request_id: requestIdOf(req), original };
  }
}
