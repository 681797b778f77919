import { Body, Controller, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/scopes';
import type { CallerIdentity } from '../auth/authenticated-request';
import { requestIdOf } from '../common/request-id';
import { ApiAnswer, ApiKeyAuth, ApiRequestError } from '../docs/openapi.decorators';
import { RequestErrorCode } from '../errors/error-codes';
import { invalidRequest, RequestError } from '../errors/request-error';
import { CreateListDto, UpdateListDto } from './dto/list-bodies.dto';
import { ListResponseModel } from './dto/list-response.dto';
import { ListsResponseModel } from './dto/lists-response.dto';
import { listNameProblem } from './list-name';
import type { ListView } from './list-view';
import { type ListChange, ListsRepository } from './lists.repository';

const bodyErrors =
  'INVALID_REQUEST: wrong Content-Type, malformed JSON, an unknown key, or a value that does not fit (the message names it)';

@ApiTags('Organization')
@ApiKeyAuth()
@Controller('api/v2/lists')
export class ListsController {
  constructor(private readonly lists: ListsRepository) {}

  @Get()
  @RequireScope('contacts:read')
  @ApiOperation({ operationId: 'listLists', summary: 'The organization’s lists, archived ones included' })
  @ApiAnswer(200, 'The lists', ListsResponseModel)
  async findAll(@Caller() caller: CallerIdentity, @Req() req: Request): Promise<{ request_id: string; lists: ListView[] }> {
    return { request_id: requestIdOf(req), lists: await this.lists.findAll(caller.organizationId) };
  }

  /** docs/api.md, "Lists": create a list. */
  @Post()
  @RequireScope('admin')
  @ApiOperation({ operationId: 'createList', summary: 'Create a list' })
  @ApiBody({ type: CreateListDto })
  @ApiAnswer(201, 'The new list (not archived)', ListResponseModel)
  @ApiRequestError(400, bodyErrors)
  @ApiRequestError(413, 'More than 1,048,576 bytes of decoded body (PAYLOAD_TOO_LARGE)')
  async create(@Caller() caller: CallerIdentity, @Req() req: Request, @Body() body: CreateListDto) {
    const problem = listNameProblem(body.name);
    if (problem) throw invalidRequest(problem);
    return { request_id: requestIdOf(req), list: await this.lists.create(caller.organizationId, body.name as string, requestIdOf(req)) };
  }

  /** docs/api.md, "Lists": rename, archive or unarchive; memberships stay. */
  @Patch(':id')
  @HttpCode(200)
  @RequireScope('admin')
  @ApiOperation({
    operationId: 'updateList',
    summary: 'Rename, archive or unarchive a list',
    description:
      'Archiving keeps every membership (contacts can no longer be added to the list: INVALID_LIST); unarchiving is allowed.',
  })
  @ApiParam({ name: 'id', type: String, description: 'The list’s id' })
  @ApiBody({ type: UpdateListDto })
  @ApiAnswer(200, 'The list after the change', ListResponseModel)
  @ApiRequestError(400, `${bodyErrors}; no known key sent; or broken percent-encoding in the path`)
  @ApiRequestError(404, 'LIST_NOT_FOUND: no list with this id in this organization')
  @ApiRequestError(413, 'More than 1,048,576 bytes of decoded body (PAYLOAD_TOO_LARGE)')
  async update(@Caller() caller: CallerIdentity, @Req() req: Request, @Param('id') id: string, @Body() body: UpdateListDto) {
    const change: ListChange = {};
    if (body.name === undefined && body.archived === undefined) throw invalidRequest('Send at least one of name, archived');
    if (body.name !== undefined) {
      const problem = listNameProblem(body.name);
      if (problem) throw invalidRequest(problem);
      change.name = body.name as string;
    }
    if (body.archived !== undefined) {
      if (typeof body.archived !== 'boolean') throw invalidRequest('archived must be a boolean');
      change.archived = body.archived;
    }
    const list = await this.lists.update(caller.organizationId, id, change, requestIdOf(req));
    if (!list) throw new RequestError(RequestErrorCode.LIST_NOT_FOUND, 'No list with this id in this organization');
    return { request_id: requestIdOf(req), list };
  }
}
