import { Module } from '@nestjs/common';
import { DescribesOpenApiModels } from '../docs/openapi.decorators';
import { StoredResponseModel } from './dto/stored-response.dto';
import { RequestsController } from './requests.controller';
import { StoredResponsesRepository } from './stored-responses.repository';
import { StoredResponsesSweeper } from './stored-responses.sweeper';

/** Exports StoredResponsesRepository: the contacts module stores its answers through it. */
@DescribesOpenApiModels({ extraModels: [StoredResponseModel] })
@Module({
  controllers: [RequestsController],
  providers: [StoredResponsesRepository, StoredResponsesSweeper],
  exports: [StoredResponsesRepository],
})
export class RequestsModule {}
