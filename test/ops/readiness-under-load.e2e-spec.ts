import { Database } from '../../src/database/database';
import { createTestAppWithOrg, type TestApp } from '../utils/test-app';
import { portOf } from '../utils/net';

/**
 * /health/ready answers from the database's own health (a connection outside the request pool),
 * not from a query queued behind requests: a busy, healthy instance stays in rotation. The pool
 * is saturated on purpose (1 connection, 160 concurrent 50-contact batches: seconds of queue)
 * while readiness is sampled every 100 ms. Through the pool, a probe waited behind the whole
 * queue and answered 503 after its 2 s bound.
 */
jest.setTimeout(120_000);

describe('readiness under saturation', () => {
  let t: TestApp;
  let apiKey: string;
  let listId: string;
  beforeAll(
    async () =>
      ({ t, apiKey, listId } = await createTestAppWithOrg({
        DB_POOL_SIZE: '1',
        DB_CONNECT_TIMEOUT_MS: '60000',
      })),
  );
  afterAll(() => t.close());

  it('a saturated pool with a healthy database: 0 readiness 503s', async () => {
    const base = `http://127.0.0.1:${portOf(t)}`;
    const pool = t.app.get(Database).pool;
    const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    const batch = (i: number) =>
      JSON.stringify({ contacts: Array.from({ length: 50 }, (_, j) => ({ email: `load-${i}-${j}@example.com`, listIds: [listId] })) });

    let loading = true;
    const load = Promise.all(
      Array.from({ length: 160 }, (_, i) => fetch(`${base}/api/v2/contacts/batch`, { method: 'POST', headers, body: batch(i) }).then((r) => r.status)),
    ).finally(() => (loading = false));

    const probes: Array<{ status: number; ms: number; waiting: number }> = [];
    while (loading && pool.waitingCount < 100) await new Promise((r) => setTimeout(r, 20)); // the queue has formed
    while (loading && pool.waitingCount > 0) {
      const waiting = pool.waitingCount;
      const started = Date.now();
      const res = await fetch(`${base}/health/ready`);
      await res.arrayBuffer();
      probes.push({ status: res.status, ms: Date.now() - started, waiting });
      await new Promise((r) => setTimeout(r, 100));
    }
    const statuses = await load;

    // The load did saturate the pool (requests queued for a connection) and the requests succeeded.
    expect(Math.max(...probes.map((p) => p.waiting))).toBeGreaterThanOrEqual(100);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(probes.length).toBeGreaterThanOrEqual(5);
    expect(probes.filter((p) => p.status !== 200)).toEqual([]);
  });
});
