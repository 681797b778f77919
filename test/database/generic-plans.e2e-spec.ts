import { Database } from '../../src/database/database';
import { defineStatement } from '../../src/database/statements';
import { createTestApp, type TestApp } from '../utils/test-app';

/**
 * A registered statement whose `plan` is 'generic' runs with its generic plan (planned once per
 * connection), in a transaction of its own; every other statement, and the connection afterwards,
 * keep the pool's custom plans (plan_cache_mode=force_custom_plan).
 */
describe('Database.run: generic plans', () => {
  let t: TestApp;
  beforeAll(async () => {
    // One connection: every statement below runs on it, so its prepared statements' counters tell.
    t = await createTestApp({ DB_POOL_SIZE: '1', WEBHOOK_DELIVERY: 'false' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("plans a statement marked 'generic' once, the others at every call", async () => {
    const database = t.app.get(Database);
    const text = 'SELECT count(*)::int AS n FROM unnest($1::text[])';
    const generic = defineStatement<{ n: number }>({ name: 'test.generic', text, columns: ['n'], sample: () => [[]], plan: 'generic' });
    const custom = defineStatement<{ n: number }>({ name: 'test.custom', text, columns: ['n'], sample: () => [[]] });
    for (let i = 1; i <= 3; i++) {
      expect(await database.run(generic, [['a', 'b'].slice(0, i)])).toEqual([{ n: Math.min(i, 2) }]);
      expect(await database.run(custom, [['a']])).toEqual([{ n: 1 }]);
    }
    const plans = await database.query<{ name: string; generic: number; custom: number }>(
      `SELECT name, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name LIKE 'test.%' ORDER BY name`,
    );
    expect(plans).toEqual([
      { name: 'test.custom', generic: 0, custom: 3 },
      { name: 'test.generic', generic: 3, custom: 0 },
    ]);
    expect(await database.query('SHOW plan_cache_mode')).toEqual([{ plan_cache_mode: 'force_custom_plan' }]);
  });
});
