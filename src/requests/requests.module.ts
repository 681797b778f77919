import { Module } from '@nestjs/common';
import { StatementRegistry } from '../database/statements';
import { DescribesOpenApiModels } from '../docs/openapi.decorators';
import { StoredResponseModel } from './dto/stored-response.dto';
import { RequestsController } from './requests.controller';
import { REQUESTS_STATEMENTS } from './stored-responses.statements';
import { StoredResponsesRepository } from './stored-responses.repository';
import { StoredResponsesSweeper } from './stored-responses.sweeper';

/**
 * Stored answers (GET /requests). A write path stores its answer with `storeAnswer` (store-answer.ts)
 * in its own transaction.
 */
@DescribesOpenApiModels({ extraModels: [StoredResponseModel] })
@Module({
  controllers: [RequestsController],
  providers: [StoredResponsesRepository, StoredResponsesSweeper],
  exports: [StoredResponsesRepository],
})
export class RequestsModule {
  constructor(statements: StatementRegistry) {
    statements.register(REQUESTS_STATEMENTS);
  }
}
