import { Body, Controller, Param, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { CallerIdentity } from '../../src/auth/authenticated-request';
import { Caller } from '../../src/auth/caller.decorator';
import { RequireScope } from '../../src/auth/scopes';
import { requestIdOf } from '../../src/common/request-id';
import { ApiAnswer, ApiKeyAuth, ApiRequestError } from '../../src/docs/openapi.decorators';
import { CopyListDto } from './dto/copy-list.dto';
import { ListCopyResponseModel } from './dto/list-copy-responses.dto';
import { ListCopiesService } from './list-copies.service';

@ApiTags('Organization')
@ApiKeyAuth() // security schemes + 401/429/408/500/503 answers
@Controller('api/v2/example/lists')
export class ListCopiesController {
  constructor(private readonly copies: ListCopiesService) {}

  @Post(':id/copy')
  @RequireScope('admin')
  @ApiOperation({ operationId: 'copyList', summary: 'Copy a list and its members' })
  @ApiAnswer(201, 'The new list', ListCopyResponseModel) // X-Request-Id and the rate-limit headers included
  @ApiRequestError(400, 'INVALID_REQUEST: wrong shape')
  @ApiRequestError(404, 'LIST_NOT_FOUND: no such list in this organization')
  async copy(@Caller() caller: CallerIdentity, @Param('id') id: string, @Body() input: CopyListDto, @Req() req: Request) {
    return { request_id: requestIdOf(req), list: await this.copies.copy(caller.organizationId, id, input.name) };
  }
}
