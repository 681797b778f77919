import type { PoolClient } from 'pg';
import { Database } from '../../src/database/database';
import { createTestApp, type TestApp } from '../utils/test-app';

/**
 * Database.transaction, the one transaction helper (list removals, deletes, suppressions, ...),
 * follows DB_CONNECT_TIMEOUT_MS (pg-pool's wait for a connection) and DB_STATEMENT_TIMEOUT_MS (each
 * statement), with no bound of its own on the whole: an operator who raises the time-outs raises
 * them for every transaction, and an erasure of an address with many events (many statements)
 * is never cut short.
 */
describe('Database.transaction: the configured bounds', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DB_POOL_SIZE: '2', DB_CONNECT_TIMEOUT_MS: '30000', DB_STATEMENT_TIMEOUT_MS: '30000' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('waits past 2 s for a pool connection, and runs past 5 s', async () => {
    const database = t.app.get(Database);
    const held: PoolClient[] = [await database.pool.connect(), await database.pool.connect()];
    let settled = false;
    // Needs a connection while both are taken; once it has one, it lasts 5.5 s.
    const transaction = database
      .transaction(async (tx) => (await tx.query<{ done: number }>('SELECT 1 AS done FROM pg_sleep(5.5)')).rows)
      .finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(settled).toBe(false);
    for (const client of held) client.release();
    expect(await transaction).toEqual([{ done: 1 }]);
  }, 60_000);
});
