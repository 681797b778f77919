import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { Database } from './database';
import { PrismaService } from './prisma.service';
import { type AnyStatement, StatementRegistry } from './statements';

/** The organization the samples run for: made inside the warm-up transaction, never committed. */
const INSERT_WARM_UP_ORGANIZATION = `INSERT INTO organizations (name) VALUES ('warm-up, rolled back') RETURNING id`;

/**
 * Before the server listens (Nest runs every OnApplicationBootstrap hook before `listen`): opens
 * every pool connection and, on each, runs every registered statement (statements.ts) once with
 * its sample values, inside a transaction that is rolled back. The first requests then find the
 * connections open and the hot statements parsed. Prisma Client's first query (its query
 * compiler and adapter) is paid here too. Knows no feature module: the registry lists what to run.
 * WARM_UP=false skips it.
 */
@Injectable()
export class WarmUpService implements OnApplicationBootstrap {
  private readonly logger = new Logger('WarmUp');

  constructor(
    private readonly database: Database,
    private readonly prisma: PrismaService,
    private readonly statements: StatementRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.WARM_UP) return;
    const started = Date.now();
    const statements = this.statements.all();
    // Every connection is held until all are warm, so each warm-up lands on its own connection.
    const clients: PoolClient[] = [];
    let failed: Error | undefined;
    try {
      for (let i = 0; i < this.database.options.poolSize; i++) clients.push(await this.database.pool.connect());
      await Promise.all(clients.map((client) => this.warm(client, statements)));
    } catch (error) {
      // Only the speed of the first requests is at stake; the database check at start is elsewhere.
      failed = error as Error;
      this.logger.warn(`Warm-up failed: ${failed.message}`);
    } finally {
      // After a failure the connections' state is unknown: they are closed, not reused.
      for (const client of clients) client.release(failed);
    }
    await this.prisma.organization.findFirst({ where: { id: '' }, select: { id: true } }).catch(() => undefined);
    this.logger.log(
      `Warmed ${clients.length} database connections (${statements.length} registered statements each) in ${Date.now() - started} ms`,
    );
  }

  private async warm(client: PoolClient, statements: AnyStatement[]): Promise<void> {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<{ id: string }>(INSERT_WARM_UP_ORGANIZATION);
      for (const statement of statements) await runSample(client, statement, rows[0].id);
    } finally {
      await client.query('ROLLBACK');
    }
  }
}

/**
 * Runs a registered statement with its sample values for an organization, as the request path
 * sends it (prepared under its name). Returns the result's column names, in order.
 */
export async function runSample(client: PoolClient, statement: AnyStatement, organizationId: string): Promise<string[]> {
  const result = await client.query({ name: statement.name, text: statement.text, values: statement.sample(organizationId) });
  return result.fields.map((field) => field.name);
}
