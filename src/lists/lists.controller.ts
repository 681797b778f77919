import { Controller, Get, Req } from '@nestjs/common';
import type { Request } from 'express';
import { Caller } from '../auth/caller.decorator';
import type { CallerIdentity } from '../auth/authenticated-request';
import { requestIdOf } from '../common/request-id';
import { ListsRepository, type ListView } from './lists.repository';

@Controller('api/v2/lists')
export class ListsController {
  constructor(private readonly lists: ListsRepository) {}

  @Get()
  async findAll(@Caller() caller: CallerIdentity, @Req() req: Request): Promise<{ request_id: string; lists: ListView[] }> {
    return { request_id: requestIdOf(req), lists: await this.lists.findAll(caller.organizationId) };
  }
}
