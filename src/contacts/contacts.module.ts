import { Module } from '@nestjs/common';
import { ContactsPipelineService } from './contacts-pipeline.service';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';

@Module({
  controllers: [ContactsController],
  providers: [ContactsRepository, ContactsPipelineService],
  exports: [ContactsPipelineService],
})
export class ContactsModule {}
