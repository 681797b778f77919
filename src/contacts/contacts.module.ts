import { Module } from '@nestjs/common';
import { ContactsPipelineService } from './contacts-pipeline.service';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';

@Module({
  controllers: [ContactsController],
  providers: [ContactsRepository, ContactsPipelineService, ContactsService],
  exports: [ContactsPipelineService, ContactsRepository],
})
export class ContactsModule {}
