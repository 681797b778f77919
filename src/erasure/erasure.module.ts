import { Module } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
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
      useFactory: (prisma: PrismaService, secrets: ErasureSecrets, events: EventsRepository) => new ErasureService(prisma, secrets, events),
      inject: [PrismaService, ErasureSecrets, EventsRepository],
    },
  ],
})
export class ErasureModule {
  constructor(statements: StatementRegistry) {
    statements.register(ERASURE_STATEMENTS);
  }
}
