import type { PoolClient } from 'pg';
import { Database } from '../../src/database/database';
import { prismaTransactionOptions } from '../../src/database/prisma.service';
import { createTestApp, type TestApp } from '../utils/test-app';

/**
 * The routes' interactive Prisma transactions (list removals, deletes, suppressions, ...) follow
 * DB_CONNECT_TIMEOUT_MS and DB_STATEMENT_TIMEOUT_MS when those are above Prisma's own 2 s and 5 s
 * (src/database/prisma.service.ts): were Prisma's own bounds to hold whatever is configured, single
 * removals racing on a few emails under load would answer 503 although the pool was given longer.
 */
describe('interactive Prisma transactions: the configured bounds', () => {
  it('are Prisma\'s (2 s, 5 s) unless the configuration asks for more', () => {
    expect(prismaTransactionOptions({ connectTimeoutMs: 3000, statementTimeoutMs: 5000 })).toEqual({ maxWait: 3000, timeout: 5000 });
    expect(prismaTransactionOptions({ connectTimeoutMs: 1000, statementTimeoutMs: 1500 })).toEqual({ maxWait: 2000, timeout: 5000 });
    expect(prismaTransactionOptions({ connectTimeoutMs: 30_000, statementTimeoutMs: 60_000 })).toEqual({ maxWait: 30_000, timeout: 60_000 });
  });

  describe('on an app with DB_CONNECT_TIMEOUT_MS and DB_STATEMENT_TIMEOUT_MS of 30 s', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ DB_POOL_SIZE: '2', DB_CONNECT_TIMEOUT_MS: '30000', DB_STATEMENT_TIMEOUT_MS: '30000' });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('a transaction waits past 2 s for a pool connection, and runs past 5 s', async () => {
      const pool = t.app.get(Database).pool;
      const held: PoolClient[] = [await pool.connect(), await pool.connect()];
      let settled = false;
      // Needs a connection while both are taken; once it has one, it lasts 5.5 s.
      const transaction = t.prisma
        .$transaction(async (tx) => tx.$queryRaw<Array<{ done: number }>>`SELECT 1 AS done FROM pg_sleep(5.5)`)
        .finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 2500));
      // With Prisma's 2 s it had given up (P2028 "Unable to start a transaction in the given time").
      expect(settled).toBe(false);
      for (const client of held) client.release();
      // With Prisma's 5 s it would be rolled back before its COMMIT (P2028, "expired transaction").
      expect(await transaction).toEqual([{ done: 1 }]);
    }, 60_000);
  });
});
