import { Pool, type PoolClient } from 'pg';
import { log, percentiles, round, type Measured } from './figures';
import type { Fixtures } from './fixtures';
import type { StatementStats } from './statement-stats';

/** One unit of a raw baseline's work on one connection; answers how many contacts it wrote. */
export type RawWork = (client: PoolClient, fx: Fixtures) => Promise<number>;

/**
 * A raw baseline: `work` sent with `pg` directly, over `connections` connections one after the
 * other each, for the warm-up then the measured seconds, with the database's statement counts.
 * Its rate is what PostgreSQL on this machine allows for that work in this run, the figure the
 * service's rate is divided by.
 */
export async function runRaw(
  url: string,
  stats: StatementStats,
  fx: Fixtures,
  name: string,
  connections: number,
  seconds: number,
  warmupSeconds: number,
  work: RawWork,
): Promise<Measured> {
  const pool = new Pool({ connectionString: url, max: connections });
  let contactsPerRequest = 1;
  const loop = async (until: number, latencies: number[]) => {
    const client = await pool.connect();
    try {
      while (Date.now() < until) {
        const started = process.hrtime.bigint();
        contactsPerRequest = await work(client, fx);
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    } finally {
      client.release();
    }
  };
  const run = async (runSeconds: number) => {
    const latencies: number[] = [];
    const started = Date.now();
    await Promise.all(Array.from({ length: connections }, () => loop(started + runSeconds * 1000, latencies)));
    return { latencies, seconds: (Date.now() - started) / 1000 };
  };
  try {
    await run(warmupSeconds);
    log(`${name}: ${seconds} s at ${connections} connections`);
    await stats.reset();
    const measured = await run(seconds);
    const counted = await stats.read();
    const requests = measured.latencies.length;
    return {
      name,
      unit: contactsPerRequest > 1 ? 'contacts' : 'requests',
      perSecond: round((requests * contactsPerRequest) / measured.seconds),
      requests,
      ...percentiles(measured.latencies),
      statementsPerRequest: counted.statements === null ? null : round(counted.statements / requests, 2),
      transactionsPerRequest: round(counted.transactions / requests, 2),
      topStatements: counted.top,
      peakRssMiB: null,
      status5xx: 0,
      statuses: {},
    };
  } finally {
    await pool.end();
  }
}
