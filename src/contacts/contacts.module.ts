import { Module } from '@nestjs/common';
import { StatementRegistry } from '../database/statements';
import { DescribesOpenApiModels } from '../docs/openapi.decorators';
import { EventsModule } from '../events/events.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RequestsModule } from '../requests/requests.module';
import { SuppressionsModule } from '../suppressions/suppressions.module';
import { ContactsPipelineService } from './contacts-pipeline.service';
import { ContactsWarmUpService } from './contacts-warm-up.service';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactDeletionRepository } from './deletion/contact-deletion.repository';
import { CONTACT_DELETION_STATEMENTS } from './deletion/contact-deletion.statements';
import { ContactListingRepository } from './listing/contact-listing.repository';
import { CONTACT_VIEWS_STATEMENTS } from './contact-views.statements';
import { CONTACTS_STATEMENTS } from './contacts.statements';
import { LISTING_COUNTS, LISTING_STATEMENTS } from './listing/listing.statements';
import { CONTACT_UNIONS } from './dto/contact-responses.dto';

@DescribesOpenApiModels({ unions: CONTACT_UNIONS })
@Module({
  imports: [MetricsModule, RequestsModule, SuppressionsModule, EventsModule],
  controllers: [ContactsController],
  providers: [ContactsRepository, ContactsPipelineService, ContactsWarmUpService, ContactListingRepository, ContactDeletionRepository],
  exports: [ContactsPipelineService],
})
export class ContactsModule {
  constructor(statements: StatementRegistry) {
    statements.register([...CONTACTS_STATEMENTS, ...CONTACT_VIEWS_STATEMENTS, ...CONTACT_DELETION_STATEMENTS, ...LISTING_STATEMENTS, LISTING_COUNTS]);
  }
}
