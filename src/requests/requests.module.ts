import { Module } from '@nestjs/common';
import { RequestsController } from './requests.controller';
import { StoredResponsesRepository } from './stored-responses.repository';
import { StoredResponsesSweeper } from './stored-responses.sweeper';

/** Exports StoredResponsesRepository: the contacts module stores its answers through it. */
@Module({
  controllers: [RequestsController],
  providers: [StoredResponsesRepository, StoredResponsesSweeper],
  exports: [StoredResponsesRepository],
})
export class RequestsModule {}
