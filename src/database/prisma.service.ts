import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';
import { Database } from './database';

/**
 * The Prisma client of the app, on the pg driver adapter over the Database's own pool: one pool,
 * one connection budget. Each call is one statement in autocommit: no route opens a Prisma
 * transaction (what must be atomic runs in `Database.transaction`, docs/extending.md "Data
 * access"), so a lost connection fails the one query and pg-pool discards it. Prisma's errors are
 * classified (503 or 500) by the global filter with the same rules as the pg path (database-errors.ts).
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit, OnModuleDestroy {
  constructor(readonly database: Database) {
    // 'minimal', as Prisma chooses under NODE_ENV=production (the Docker image): otherwise every
    // call captures a stack for a code frame in its error message (in tests: every expected
    // constraint error mapped through source maps), which no answer or log line shows.
    super({ adapter: new PrismaPg(database.pool), errorFormat: 'minimal' });
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
