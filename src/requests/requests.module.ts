import { Module } from '@nestjs/common';
import { StatementRegistry } from '../database/statements';
import { DescribesOpenApiModels } from '../docs/openapi.decorators';
import { StoredResponseModel } from './dto/stored-response.dto';
import { RequestsController } from './requests.controller';
import { StoredResponsesRepository } from './stored-responses.repository';
import { STORED_RESPONSES_STATEMENTS } from './stored-responses.statements';
import { StoredResponsesSweeper } from './stored-responses.sweeper';

/** Exports StoredResponsesRepository: the contacts module stores its answers through it. */
@DescribesOpenApiModels({ extraModels: [StoredResponseModel] })
@Module({
  controllers: [RequestsController],
  providers: [StoredResponsesRepository, StoredResponsesSweeper],
  exports: [StoredResponsesRepository],
})
export class RequestsModule {
  constructor(statements: StatementRegistry) {
    statements.register(STORED_RESPONSES_STATEMENTS);
  }
}
