import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { Database } from './database';
import { ReleasingPgAdapterFactory } from './prisma-adapter';

/**
 * The Prisma client of the app, on the pg driver adapter built over the Database's own pool: one
 * pool, one connection budget. The adapter is wrapped (prisma-adapter.ts) so that an interactive
 * transaction whose backend died gives its connection back; Prisma's errors are classified (503
 * or 500) by the global filter with the same rules as the raw path (database-errors.ts).
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit, OnModuleDestroy {
  constructor(readonly database: Database) {
    // 'minimal', as Prisma chooses under NODE_ENV=production (the Docker image): otherwise every
    // call captures a stack for a code frame in its error message (in tests: every expected
    // constraint error mapped through source maps), which no answer or log line shows.
    super({ adapter: new ReleasingPgAdapterFactory(database), errorFormat: 'minimal' });
  }

  async onModuleInit(): Promise<void> {
    // Fail loudly at start when the database cannot be reached.
    await this.$connect();
    await this.database.query('SELECT 1');
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
