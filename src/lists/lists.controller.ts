import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Caller } from '../auth/caller.decorator';
import type { CallerIdentity } from '../auth/authenticated-request';
import { requestIdOf } from '../common/request-id';
import { ApiAnswer, ApiKeyAuth } from '../docs/openapi.decorators';
import { ListsResponseModel } from './dto/lists-response.dto';
import { ListsRepository, type ListView } from './lists.repository';

@ApiTags('Organization')
@ApiKeyAuth()
@Controller('api/v2/lists')
export class ListsController {
  constructor(private readonly lists: ListsRepository) {}

  @Get()
  @ApiOperation({ operationId: 'listLists', summary: 'The organization’s lists, archived ones included' })
  @ApiAnswer(200, 'The lists', ListsResponseModel)
  async findAll(@Caller() caller: CallerIdentity, @Req() req: Request): Promise<{ request_id: string; lists: ListView[] }> {
    return { request_id: requestIdOf(req), lists: await this.lists.findAll(caller.organizationId) };
  }
}
