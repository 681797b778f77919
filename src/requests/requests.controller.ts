import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { requestIdOf } from '../common/request-id';
import { DomainError, invalidRequest } from '../errors/domain-error';
import { RequestErrorCode } from '../errors/error-codes';
import { isValidClientRequestId } from './client-request-id';
import { StoredResponsesRepository, type StoredAnswer } from './stored-responses.repository';

const requestNotFound = () =>
  new DomainError(RequestErrorCode.REQUEST_NOT_FOUND, 'No stored response for this request id in this organization');

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
    if (!original) throw requestNotFound();
    return { request_id: requestIdOf(req), original };
  }

  /** GET /api/v2/requests?clientRequestId=<id>: the most recent answer stored under a client request id. */
  @Get()
  async findByClientRequestId(
    @Caller() caller: CallerIdentity,
    @Req() req: Request,
    @Query('clientRequestId') clientRequestId: unknown,
  ): Promise<{ request_id: string; original: StoredAnswer }> {
    // Missing, repeated (an array) or outside the header's grammar.
    if (!isValidClientRequestId(clientRequestId)) {
      throw invalidRequest('clientRequestId must be given once, 1 to 128 characters of A-Z a-z 0-9 . _ : -');
    }
    const original = await this.responses.findByClientRequestId(caller.organizationId, clientRequestId);
    if (!original) throw requestNotFound();
    return { request_id: requestIdOf(req), original };
  }
}
