import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { RequestsModule } from '../requests/requests.module';
import { ContactsPipelineService } from './contacts-pipeline.service';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';

@Module({
  imports: [MetricsModule, RequestsModule],
  controllers: [ContactsController],
  providers: [ContactsRepository, ContactsPipelineService, ContactsService],
  exports: [ContactsPipelineService, ContactsRepository],
})
export class ContactsModule {}
