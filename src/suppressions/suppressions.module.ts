import { Module } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { EventsModule } from '../events/events.module';
import { EventsRepository } from '../events/events.repository';
import { ErasureSecrets } from './erasure-secrets';
import { SuppressionsController } from './suppressions.controller';
import { SuppressionsService } from './suppressions.service';

/**
 * Suppressions over the API and the erasure secrets (the HMAC key of erased suppressions), used by
 * the contacts pipeline (rule 8) and erasure. The classes take a PrismaClient, so the admin
 * command line builds the same ones on its own client (one place for the rules).
 */
@Module({
  imports: [EventsModule],
  controllers: [SuppressionsController],
  providers: [
    { provide: ErasureSecrets, useFactory: (prisma: PrismaService) => new ErasureSecrets(prisma), inject: [PrismaService] },
    {
      provide: SuppressionsService,
      useFactory: (prisma: PrismaService, secrets: ErasureSecrets, events: EventsRepository) => new SuppressionsService(prisma, secrets, events),
      inject: [PrismaService, ErasureSecrets, EventsRepository],
    },
  ],
  exports: [ErasureSecrets, SuppressionsService],
})
export class SuppressionsModule {}
