import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';
import { Database } from './database';

/**
 * The Prisma client of the app (schema, admin, demo seed), on the pg driver adapter built over the
 * Database's own pool: one pool, one connection budget. The request path runs its SQL through
 * Database directly (see database.ts).
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit, OnModuleDestroy {
  constructor(readonly database: Database) {
    super({ adapter: new PrismaPg(database.pool) });
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
