import { Global, Module } from '@nestjs/common';
import { RequestsController } from './requests.controller';
import { StoredResponsesRepository } from './stored-responses.repository';
import { StoredResponsesSweeper } from './stored-responses.sweeper';

/** Global: the contacts controller stores its answers through StoredResponsesRepository. */
@Global()
@Module({
  controllers: [RequestsController],
  providers: [StoredResponsesRepository, StoredResponsesSweeper],
  exports: [StoredResponsesRepository],
})
export class RequestsModule {}
