import { Client } from 'pg';
import { Database } from '../../src/database/database';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';

/**
 * A backend terminated while its connection is checked out with no statement running and no
 * listener of the holder's: pg emits 'error' on the client, which must never be an unhandled
 * 'error' event (it would crash the process; Jest fails the test with "Unhandled error").
 * Seen in CI under "all backends terminated at once" (prisma-faults).
 */
describe('a pool connection whose backend is terminated while checked out and idle', () => {
  let testDb: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    // The connect time-out is not what is tested: room for a new connection on a loaded CI machine.
    database = new Database({ url: testDb.url, poolSize: 2, connectTimeoutMs: 20_000, statementTimeoutMs: 5000, idleInTransactionTimeoutMs: 5000 });
  });

  afterAll(async () => {
    await database.onModuleDestroy();
    await testDb.drop();
  });

  it('does not crash the process; released with the error, the pool serves again', async () => {
    // Checked out with no listener of the holder's (pg-pool removes its idle listener on checkout).
    const client = await database.pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const killer = new Client({ connectionString: testDb.url });
    await killer.connect();
    try {
      await killer.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    } finally {
      await killer.end();
    }
    // The FATAL message and the socket's end arrive while nothing runs on the client.
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (client as unknown as { _queryable: boolean })._queryable) await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(new Error('connection lost'));
    expect(await database.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
