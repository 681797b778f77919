import { Client } from 'pg';
import { log, round, type Measured } from './figures';

/** Statements (pg_stat_statements when loadable) and transactions (pg_stat_database) of the bench database. */
export class StatementStats {
  private constructor(
    private readonly client: Client,
    private readonly hasStatements: boolean,
    private xacts = 0,
  ) {}

  static async open(url: string): Promise<StatementStats> {
    const client = new Client({ connectionString: url });
    await client.connect();
    let has = false;
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await client.query('SELECT pg_stat_statements_reset()');
      has = true;
    } catch (error) {
      log(`pg_stat_statements unavailable (${(error as Error).message}): statements per request reported as null`);
    }
    return new StatementStats(client, has);
  }

  async reset(): Promise<void> {
    if (this.hasStatements) await this.client.query('SELECT pg_stat_statements_reset()');
    this.xacts = await this.transactions();
  }

  /** Since the last reset: statements (null without pg_stat_statements), transactions, the 4 costliest statements. */
  async read(): Promise<{ statements: number | null; transactions: number; top?: Measured['topStatements'] }> {
    const transactions = (await this.transactions()) - this.xacts;
    if (!this.hasStatements) return { statements: null, transactions };
    const mine = `dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND query NOT ILIKE '%pg_stat%' AND query NOT ILIKE '%pg_database%'`;
    const { rows } = await this.client.query<{ calls: string | null }>(`SELECT sum(calls)::bigint AS calls FROM pg_stat_statements WHERE ${mine}`);
    const top = await this.client.query<{ query: string; calls: string; mean: number; max: number }>(
      `SELECT regexp_replace(left(query, 70), '\\s+', ' ', 'g') AS query, calls::bigint AS calls, mean_exec_time AS mean, max_exec_time AS max
       FROM pg_stat_statements WHERE ${mine} ORDER BY total_exec_time DESC LIMIT 4`,
    );
    return {
      statements: Number(rows[0].calls ?? 0),
      transactions,
      top: top.rows.map((r) => ({ query: r.query, calls: Number(r.calls), meanMs: round(r.mean, 3), maxMs: round(r.max, 1) })),
    };
  }

  private async transactions(): Promise<number> {
    // pg_stat_database is refreshed with a delay; force a fresh snapshot after it.
    await this.client.query('SELECT pg_stat_clear_snapshot()');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const { rows } = await this.client.query<{ n: string }>(
      'SELECT (xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0].n);
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
