import { Database } from '../../src/database/database';
import { createTestApp, type TestApp } from '../utils/test-app';

/** Before listening, every pool connection is open and each hot statement has run, writing nothing. */
describe('warm-up before listening', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DB_POOL_SIZE: '4' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('opens DB_POOL_SIZE connections and prepares the hot statements on them', async () => {
    const pool = t.app.get(Database).pool;
    expect(pool.totalCount).toBe(4);
    const prepared = await t.app.get(Database).query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
    expect(prepared.map((row) => row.name)).toEqual(
      expect.arrayContaining(['api-keys.find-by-hash', 'contacts.find-by-email', 'contacts.lock-emails', 'contacts.read-rule-context']),
    );
  });

  it('writes nothing', async () => {
    const [row] = await t.app.get(Database).query<{ contacts: number; answers: number; organizations: number }>(
      `SELECT (SELECT count(*)::int FROM contacts) AS contacts, (SELECT count(*)::int FROM stored_responses) AS answers,
              (SELECT count(*)::int FROM organizations) AS organizations`,
    );
    expect(row).toEqual({ contacts: 0, answers: 0, organizations: 0 });
  });
});
