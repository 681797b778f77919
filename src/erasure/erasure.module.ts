import { Module } from '@nestjs/common';
import { Database } from '../database/database';
import { StatementRegistry } from '../database/statements';
import { EventsModule } from '../events/events.module';
import { EventsRepository } from '../events/events.repository';
import { ErasureSecrets } from '../suppressions/erasure-secrets';
import { SuppressionsModule } from '../suppressions/suppressions.module';
import { ErasureController } from './erasure.controller';
import { ErasureService } from './erasure.service';
import { ERASURE_STATEMENTS } from './erasure.statements';

@Module({
  imports: [SuppressionsModule, EventsModule],
  controllers: [ErasureController],
  providers: [
    {
      provide: ErasureService,
      useFactory: (database: Database, secrets: ErasureSecrets, events: EventsRepository) => new ErasureService(database, secrets, events),
      inject: [Database, ErasureSecrets, EventsRepository],
    },
  ],
})
export class ErasureModule {
  constructor(statements: StatementRegistry) {
    statements.register(ERASURE_STATEMENTS);
  }
}
