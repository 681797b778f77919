import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import { requestIdOf } from '../common/request-id';
import { RequestError, invalidRequest } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { isValidClientRequestId } from './client-request-id';
import { ApiAnswer, ApiKeyAuth, ApiRequestError, CLIENT_REQUEST_ID_PATTERN } from '../docs/openapi.decorators';
import { StoredResponseModel } from './dto/stored-response.dto';
import type { StoredAnswer } from './stored-answer';
import { StoredResponsesRepository } from './stored-responses.repository';

const requestNotFound = () =>
  new RequestError(RequestErrorCode.REQUEST_NOT_FOUND, 'No stored response for this request id in this organization');

/** GET /api/v2/requests/{request_id}: what a POST of this organization answered (docs/api.md#lost-responses). */
@ApiTags('Contacts')
@ApiKeyAuth()
@Controller('api/v2/requests')
export class RequestsController {
  constructor(private readonly responses: StoredResponsesRepository) {}

  // The parameter is named as in the OpenAPI document's path, which the docs test matches against.
  @Get(':request_id')
  @RequireScope('contacts:read')
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
    if (!original) throw requestNotFound();
    return { request_id: requestIdOf(req), original };
  }

  /** GET /api/v2/requests?clientRequestId=<id>: the most recent answer stored under a client request id. */
  @Get()
  @RequireScope('contacts:read')
  @ApiOperation({
    operationId: 'findStoredResponseByClientRequestId',
    summary: 'What a POST of this organization answered under an X-Client-Request-Id (kept 24 hours)',
    description:
      'The same body as GET /api/v2/requests/{request_id}, whose `original` also carries `client_request_id`. When ' +
      'several POSTs used one id, the most recent stored answer is returned.',
  })
  @ApiQuery({
    name: 'clientRequestId',
    required: true,
    description: 'The X-Client-Request-Id a POST sent',
    schema: { type: 'string', pattern: CLIENT_REQUEST_ID_PATTERN },
  })
  @ApiAnswer(200, 'The original answer', StoredResponseModel)
  @ApiRequestError(400, 'The query parameter missing or invalid (INVALID_REQUEST)')
  @ApiRequestError(404, 'REQUEST_NOT_FOUND: no stored answer under this id in this organization, or expired')
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
