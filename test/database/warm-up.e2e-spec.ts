import type { PoolClient } from 'pg';
import { Database } from '../../src/database/database';
import { StatementRegistry } from '../../src/database/statements';
import { createTestApp, type TestApp } from '../utils/test-app';

/** Before listening, every pool connection is open and each registered statement has run on it, writing nothing. */
describe('warm-up before listening', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DB_POOL_SIZE: '4', WARM_UP: 'true' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('opens DB_POOL_SIZE connections and prepares every registered statement on each', async () => {
    const pool = t.app.get(Database).pool;
    expect(pool.totalCount).toBe(4);
    const registered = t.app.get(StatementRegistry).all().map((statement) => statement.name);
    // The hot statements (the API-key lookup and the contacts pipeline's) are all registered.
    expect(registered).toEqual(
      expect.arrayContaining(['api-keys.find-by-hash', 'contacts.lock-emails', 'contacts.read-rule-context', 'contacts.write', 'events.insert', 'requests.store-answer']),
    );
    const clients: PoolClient[] = [];
    try {
      for (let i = 0; i < 4; i++) clients.push(await pool.connect());
      expect(pool.totalCount).toBe(4); // the same four connections, not new ones
      for (const client of clients) {
        const { rows } = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
        expect(rows.map((row) => row.name)).toEqual(expect.arrayContaining(registered));
      }
    } finally {
      for (const client of clients) client.release();
    }
  });

  it('writes nothing', async () => {
    const [row] = await t.app.get(Database).query<{ contacts: number; answers: number; organizations: number }>(
      `SELECT (SELECT count(*)::int FROM contacts) AS contacts, (SELECT count(*)::int FROM stored_responses) AS answers,
              (SELECT count(*)::int FROM organizations) AS organizations`,
    );
    expect(row).toEqual({ contacts: 0, answers: 0, organizations: 0 });
  });
});

describe('WARM_UP=false', () => {
  it('listens without opening the pool or preparing the registered statements first', async () => {
    const t = await createTestApp({ DB_POOL_SIZE: '4', WARM_UP: 'false' });
    try {
      const pool = t.app.get(Database).pool;
      expect(pool.totalCount).toBeLessThan(4);
      const client = await pool.connect();
      try {
        const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements');
        expect(rows[0].n).toBe(0);
      } finally {
        client.release();
      }
    } finally {
      await t.close();
    }
  });
});
