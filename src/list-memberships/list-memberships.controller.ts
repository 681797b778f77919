import { Body, Controller, Delete, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { CallerIdentity } from '../auth/authenticated-request';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import { requestIdOf } from '../common/request-id';
import { isValidEmail, normalizeEmail } from '../contacts/email';
import { ApiAnswer, ApiKeyAuth, ApiRequestError } from '../docs/openapi.decorators';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError } from '../errors/request-error';
import { ListRemovalBatchModel, ListRemovalModel } from './dto/removal-responses.dto';
import { RemoveFromListDto } from './dto/remove-from-list.dto';
import { ListMembershipsService, REMOVAL_BATCH_LIMIT } from './list-memberships.service';

const listIdParam = ApiParam({ name: 'listId', type: String, description: 'A list of this organization, archived or not' });

/** docs/api.md, "Removing from lists": a contact leaves a list without being deleted. */
@ApiTags('Contacts')
@ApiKeyAuth()
@Controller('api/v2/lists/:listId/contacts')
export class ListMembershipsController {
  constructor(private readonly service: ListMembershipsService) {}

  @Post('remove')
  @HttpCode(200)
  @RequireScope('contacts:write')
  @ApiOperation({
    operationId: 'removeFromListBatch',
    summary: `Remove up to ${REMOVAL_BATCH_LIMIT} contacts from a list`,
    description:
      'Per row, in order: INVALID_EMAIL, DUPLICATE_IN_REQUEST (a later row repeating an earlier row’s email), then ' +
      'CONTACT_NOT_FOUND, `unchanged` (not a member), LAST_LIST_MEMBERSHIP (a contact is always in at least one list), ' +
      'or `removed`. All removals of the batch in one transaction.',
  })
  @listIdParam
  @ApiAnswer(200, 'One result per row, in input order', ListRemovalBatchModel)
  @ApiRequestError(
    400,
    'INVALID_REQUEST (wrong Content-Type, malformed JSON, `emails` missing, not an array or empty, an unknown key) or ' +
      `BATCH_LIMIT_EXCEEDED (more than ${REMOVAL_BATCH_LIMIT} emails)`,
  )
  @ApiRequestError(404, 'LIST_NOT_FOUND: no such list in this organization')
  @ApiRequestError(413, 'More than 1,048,576 bytes of decoded body (PAYLOAD_TOO_LARGE)')
  async removeBatch(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('listId') listId: string, @Body() body: RemoveFromListDto) {
    await this.service.requireList(caller.organizationId, listId);
    const results = await this.service.remove(caller.organizationId, listId, body.emails, requestIdOf(req));
    return { request_id: requestIdOf(req), results: results.map((result, index) => ({ index, ...result })) };
  }

  @Delete(':email')
  @RequireScope('contacts:write')
  @ApiOperation({
    operationId: 'removeFromList',
    summary: 'Remove one contact from a list',
    description: '`unchanged` when the contact is not a member. Removing its last membership is 409 LAST_LIST_MEMBERSHIP (delete the contact instead).',
  })
  @listIdParam
  @ApiParam({ name: 'email', type: String, description: 'URL-encoded; normalized (trimmed, lowercased) before lookup' })
  @ApiAnswer(200, 'Removed, or unchanged (not a member)', ListRemovalModel)
  @ApiRequestError(400, 'Broken percent-encoding in the path (INVALID_REQUEST), checked after the key and the limits')
  @ApiRequestError(404, 'LIST_NOT_FOUND (no such list in this organization), else CONTACT_NOT_FOUND (no such contact, or not a valid email)')
  @ApiRequestError(409, 'LAST_LIST_MEMBERSHIP: this is the contact’s only list')
  async removeOne(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('listId') listId: string, @Param('email') rawEmail: string) {
    await this.service.requireList(caller.organizationId, listId);
    const email = normalizeEmail(rawEmail);
    if (!isValidEmail(email)) throw new RequestError(RequestErrorCode.CONTACT_NOT_FOUND, 'No contact with this email in this organization');
    const [result] = await this.service.remove(caller.organizationId, listId, [email], requestIdOf(req));
    if (result.status === 'failed') throw new RequestError(RequestErrorCode[result.code as 'CONTACT_NOT_FOUND' | 'LAST_LIST_MEMBERSHIP'], result.message);
    return { request_id: requestIdOf(req), email, listId, status: result.status };
  }
}
