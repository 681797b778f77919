import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { type Prisma, PrismaClient } from '../generated/prisma/client';

export const DATABASE_URL = Symbol('DATABASE_URL');

/** The app's client or the client of an open transaction, for repositories that serve both. */
export type DatabaseClient = Prisma.TransactionClient;

/**
 * The Prisma client of the app, on the pg driver adapter (no Rust engine at run time). It owns
 * its pg Pool, so it can count statements (used by tests that prove batches are set-based).
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit, OnModuleDestroy {
  readonly pool: Pool;
  private statements = 0;
  private readonly logger = new Logger('Database');

  constructor(@Inject(DATABASE_URL) databaseUrl: string) {
    const pool = new Pool({ connectionString: databaseUrl, max: 10 });
    super({ adapter: new PrismaPg(pool) });
    this.pool = pool;
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it and /health/ready reports the outage.
    pool.on('error', (error) => this.logger.warn(`Idle database connection lost: ${error.message}`));
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        this.statements++;
        return query(...args);
      };
    });
  }

  /** Statements sent to PostgreSQL since start (BEGIN and COMMIT included). */
  get statementCount(): number {
    return this.statements;
  }

  async onModuleInit(): Promise<void> {
    // Fail loudly at start when the database cannot be reached.
    await this.$connect();
    await this.$queryRaw`SELECT 1`;
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
    await this.pool.end();
  }
}
