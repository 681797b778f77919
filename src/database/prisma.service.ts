import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { Database, type DatabaseOptions } from './database';
import { ReleasingPgAdapterFactory } from './prisma-adapter';

/** Prisma's own bounds of an interactive transaction: a pool connection within 2 s, the whole transaction within 5 s. */
const PRISMA_MAX_WAIT_MS = 2000;
const PRISMA_TIMEOUT_MS = 5000;

/**
 * The bounds of the routes' interactive transactions (`$transaction(async (tx) => ...)`): Prisma's
 * own, raised to the configured ones when those are larger. The wait for a pool connection is at
 * least DB_CONNECT_TIMEOUT_MS, as on the pg path (pg-pool's own bound); the transaction may last at
 * least DB_STATEMENT_TIMEOUT_MS. With the defaults (3 s, 5 s): 3 s and 5 s. So an operator who
 * raises the time-outs raises them for these transactions too: otherwise Prisma's own 2 s would
 * still answer a removal or a delete with 503 when no connection comes within it. A transaction that
 * needs longer passes its own `timeout` (erasure: ERASURE_TRANSACTION_TIMEOUT_MS).
 */
export function prismaTransactionOptions(options: Pick<DatabaseOptions, 'connectTimeoutMs' | 'statementTimeoutMs'>): { maxWait: number; timeout: number } {
  return {
    maxWait: Math.max(PRISMA_MAX_WAIT_MS, options.connectTimeoutMs),
    timeout: Math.max(PRISMA_TIMEOUT_MS, options.statementTimeoutMs),
  };
}

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
    super({
      adapter: new ReleasingPgAdapterFactory(database),
      errorFormat: 'minimal',
      transactionOptions: prismaTransactionOptions(database.options),
    });
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
