import { Controller, Get, Param, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { requestIdOf } from '../common/request-id';
import { DomainError } from '../errors/domain-error';
import { RequestErrorCode } from '../errors/error-codes';
import { ApiAnswer, ApiKeyAuth, ApiRequestError } from '../docs/openapi.decorators';
import { StoredResponseModel } from './dto/stored-response.dto';
import { StoredResponsesRepository, type StoredAnswer } from './stored-responses.repository';

/** GET /api/v2/requests/{request_id}: what a POST of this organization answered (contract section 11). */
@ApiTags('Contacts')
@ApiKeyAuth()
@Controller('api/v2/requests')
export class RequestsController {
  constructor(private readonly responses: StoredResponsesRepository) {}

  // The parameter is named as in the OpenAPI document's path, which the docs test matches against.
  @Get(':request_id')
  @ApiOperation({
    operationId: 'getStoredResponse',
    summary: 'What a POST of this organization answered under a request id (kept 24 hours)',
    description: 'Every POST answered from the contacts pipeline is kept; dry runs and request-level errors are not.',
  })
  @ApiParam({ name: 'request_id', type: String, description: 'The X-Request-Id of the POST' })
  @ApiAnswer(200, 'The original answer', StoredResponseModel)
  @ApiRequestError(400, 'Broken percent-encoding in the path (INVALID_REQUEST), checked after the key and the limits')
  @ApiRequestError(404, 'REQUEST_NOT_FOUND: unknown, expired or another organization’s id')
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
