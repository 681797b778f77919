import { Module } from '@nestjs/common';
import { Database } from '../database/database';
import { PrismaService } from '../database/prisma.service';
import { StatementRegistry } from '../database/statements';
import { EventsModule } from '../events/events.module';
import { EventsRepository } from '../events/events.repository';
import { ErasureSecrets } from './erasure-secrets';
import { SuppressionsController } from './suppressions.controller';
import { SuppressionsService } from './suppressions.service';
import { SUPPRESSIONS_STATEMENTS } from './suppressions.statements';

/**
 * Suppressions over the API and the erasure secrets (the HMAC key of erased suppressions), used by
 * the contacts pipeline (rule 8) and erasure. The classes take their clients as arguments, so the
 * admin command line builds the same ones on its own (one place for the rules).
 */
@Module({
  imports: [EventsModule],
  controllers: [SuppressionsController],
  providers: [
    { provide: ErasureSecrets, useFactory: (prisma: PrismaService) => new ErasureSecrets(prisma), inject: [PrismaService] },
    {
      provide: SuppressionsService,
      useFactory: (database: Database, secrets: ErasureSecrets, events: EventsRepository) => new SuppressionsService(database, secrets, events),
      inject: [Database, ErasureSecrets, EventsRepository],
    },
  ],
  exports: [ErasureSecrets, SuppressionsService],
})
export class SuppressionsModule {
  constructor(statements: StatementRegistry) {
    statements.register(SUPPRESSIONS_STATEMENTS);
  }
}
