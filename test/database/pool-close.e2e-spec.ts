import { Database } from '../../src/database/database';
import { useTestDatabase } from '../utils/test-database';

/**
 * pg-pool's end() resolves once every connection has left the pool, while each is still closing
 * (its Terminate sent, the socket not yet closed). At shutdown the embedded server is stopped
 * right after: a connection still closing then got the server's 57P01 and was logged as a
 * database fault ("idle connection lost") on a clean SIGTERM. Closing the Database waits for
 * every connection to have closed.
 */
describe('closing the Database', () => {
  const testDb = useTestDatabase();

  it('resolves once every pool connection has closed, not only left the pool', async () => {
    const database = new Database({ url: testDb.url, poolSize: 4, connectTimeoutMs: 2000, statementTimeoutMs: 5000, idleInTransactionTimeoutMs: 5000 });
    const clients = await Promise.all([1, 2, 3, 4].map(() => database.pool.connect()));
    for (const client of clients) client.release();
    let closed = 0;
    database.pool.on('remove', () => closed++);
    await database.onModuleDestroy();
    expect(closed).toBe(4);
  });

  // No give-up of its own: a request still holding a connection finishes its work first. The
  // process's SHUTDOWN_TIMEOUT_MS is what bounds a connection that never comes back; the release
  // here comes after that setting's default, so a bound inside the Database would show.
  it('waits for a connection still checked out, however long, and then closes it', async () => {
    const database = new Database({ url: testDb.url, poolSize: 2, connectTimeoutMs: 2000, statementTimeoutMs: 5000, idleInTransactionTimeoutMs: 5000 });
    const client = await database.pool.connect();
    let releasedAt = 0;
    const release = setTimeout(() => {
      releasedAt = Date.now();
      client.release();
    }, 11_000);
    let closed = 0;
    database.pool.on('remove', () => closed++);
    try {
      await database.onModuleDestroy();
    } finally {
      clearTimeout(release);
    }
    expect(releasedAt).toBeGreaterThan(0);
    expect(closed).toBe(1);
  });
});
