import type { Client } from 'pg';
import { createApiKey, createCustomField, createList } from '../utils/fixtures';
import { useFaultApp } from './fault-app';
import { terminateLockWaiters } from './fault-database';

/**
 * POST/PATCH /api/v2/lists and /api/v2/fields when the database fails under them (docs/api.md,
 * "Lists", "Custom fields"; docs/database-faults.md). The app's backend is terminated while its
 * statement waits on a lock held by this test, i.e. with the request's transaction open: the
 * answer is 503 SERVICE_UNAVAILABLE with Retry-After, nothing of the request is in the database,
 * and the next request is served normally. A stopped server is a quick 503 too.
 */
const CONNECT_TIMEOUT_MS = 1000;

describe('lists and custom fields under database faults', () => {

  const f = useFaultApp({ DB_POOL_SIZE: '4', DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), DB_STATEMENT_TIMEOUT_MS: '20000' }, { lists: [] });
  let headers: Record<string, string>;

  beforeAll(async () => {
    headers = { Authorization: `Bearer ${(await createApiKey(f.t.prisma, f.organizationId, { scope: 'admin' })).key}`, 'Content-Type': 'application/json' };
  });

  const call = async (method: 'POST' | 'PATCH', path: string, body: unknown) => {
    const res = await fetch(`${f.base}${path}`, { method, headers, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  /** Runs `request` while `lock` (run by the blocker in an open transaction) makes it wait, then kills its backend. */
  async function killedWhileWaiting(lock: (blocker: Client) => Promise<void>, request: () => ReturnType<typeof call>) {
    return f.db.withClient(async (blocker) => {
      await blocker.query('BEGIN');
      await lock(blocker);
      const sent = Date.now();
      const pending = request().then((answer) => ({ answer, after: Date.now() - sent }));
      const killed = await terminateLockWaiters(blocker, 5000);
      const { answer, after } = await pending;
      await blocker.query('ROLLBACK');
      // If nothing waited on the lock, say what the request did instead.
      if (killed === 0) throw new Error(`no backend of the app waited on the lock; the request answered after ${after} ms: ${JSON.stringify(answer)}`);
      return answer;
    });
  }

  const expectUnavailable = (answer: Awaited<ReturnType<typeof call>>) => {
    expect([answer.status, answer.body.error?.code, answer.retryAfter]).toEqual([503, 'SERVICE_UNAVAILABLE', '1']);
  };

  it('POST /lists: backend terminated mid-request -> 503, no list; then served', async () => {
    const answer = await killedWhileWaiting(
      (blocker) => blocker.query('LOCK TABLE lists IN ACCESS EXCLUSIVE MODE').then(() => undefined),
      () => call('POST', '/api/v2/lists', { name: 'Never made' }),
    );
    expectUnavailable(answer);
    expect(await f.t.prisma.list.count({ where: { organizationId: f.organizationId, name: 'Never made' } })).toBe(0);
    expect((await call('POST', '/api/v2/lists', { name: 'Made' })).status).toBe(201);
  });

  it('PATCH /lists/{id}: backend terminated mid-request -> 503, list unchanged', async () => {
    const list = await createList(f.t.prisma, f.organizationId, 'Before');
    const answer = await killedWhileWaiting(
      (blocker) => blocker.query('SELECT 1 FROM lists WHERE id = $1 FOR UPDATE', [list.id]).then(() => undefined),
      () => call('PATCH', `/api/v2/lists/${list.id}`, { name: 'After', archived: true }),
    );
    expectUnavailable(answer);
    expect(await f.t.prisma.list.findUnique({ where: { id: list.id } })).toMatchObject({ name: 'Before', archived: false });
    expect((await call('PATCH', `/api/v2/lists/${list.id}`, { name: 'After' })).status).toBe(200);
  });

  it('POST /fields: backend terminated while waiting on the unique index -> 503, no field', async () => {
    const answer = await killedWhileWaiting(
      // An uncommitted row with the same key: the app's insert waits to learn whether it commits.
      (blocker) =>
        blocker
          .query(`INSERT INTO custom_fields (organization_id, key, type) VALUES ($1, 'racing', 'text')`, [f.organizationId])
          .then(() => undefined),
      () => call('POST', '/api/v2/fields', { key: 'racing', type: 'number' }),
    );
    expectUnavailable(answer);
    expect(await f.t.prisma.customField.count({ where: { organizationId: f.organizationId, key: 'racing' } })).toBe(0);
    expect((await call('POST', '/api/v2/fields', { key: 'racing', type: 'number' })).status).toBe(201);
  });

  it('PATCH /fields/{key}: backend terminated inside its transaction -> 503, field unchanged', async () => {
    await createCustomField(f.t.prisma, f.organizationId, { key: 'tier', type: 'select', options: ['a'] });
    const answer = await killedWhileWaiting(
      (blocker) =>
        blocker.query(`SELECT 1 FROM custom_fields WHERE organization_id = $1 AND key = 'tier' FOR UPDATE`, [f.organizationId]).then(() => undefined),
      () => call('PATCH', '/api/v2/fields/tier', { options: ['a', 'b'], required: true }),
    );
    expectUnavailable(answer);
    expect(await f.t.prisma.customField.findFirst({ where: { organizationId: f.organizationId, key: 'tier' } })).toMatchObject({
      options: ['a'],
      required: false,
    });
    expect((await call('PATCH', '/api/v2/fields/tier', { options: ['a', 'b'] })).status).toBe(200);
  });

  it('server stopped: every endpoint answers 503 quickly; started again: served', async () => {
    const list = await createList(f.t.prisma, f.organizationId, 'Stopped');
    await f.db.stopServer();
    try {
      for (const [method, path, body] of [
        ['POST', '/api/v2/lists', { name: 'x' }],
        ['PATCH', `/api/v2/lists/${list.id}`, { name: 'x' }],
        ['POST', '/api/v2/fields', { key: 'down', type: 'text' }],
        ['PATCH', '/api/v2/fields/tier', { required: true }],
      ] as const) {
        const started = Date.now();
        expectUnavailable(await call(method, path, body));
        expect(Date.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS + 4000);
      }
    } finally {
      await f.db.startServer();
    }
    let status = 0;
    for (let i = 0; i < 50 && status !== 201; i++) {
      status = (await call('POST', '/api/v2/fields', { key: 'up', type: 'text' })).status;
      if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(201);
    expect(await f.t.prisma.customField.count({ where: { organizationId: f.organizationId, key: 'down' } })).toBe(0);
    expect(await f.t.prisma.list.findUnique({ where: { id: list.id } })).toMatchObject({ name: 'Stopped' });
  }, 60_000);
});
