import { Database } from '../../src/database/database';
import { classifyDatabaseError } from '../../src/database/database-errors';
import { RequestError } from '../../src/errors/request-error';
import { createApiKey } from '../utils/fixtures';
import { sendWhile, useFaultApp } from './fault-app';
import { terminateLockWaiters } from './fault-database';

/**
 * The database-fault promises on the two ways to the database besides the contacts pipeline
 * (docs/database-faults.md): Prisma Client in autocommit (GET /api/v2/lists) and a transaction of
 * registered statements in Database.transaction (POST /api/v2/lists: the list and its
 * `list.created` event, as every other converted write path), on a PostgreSQL this file owns.
 * Backends terminated one at a time and all at once under load, the server stopped and started:
 * 503 + Retry-After (500 only for a write whose COMMIT outcome is unknown), nothing half-written,
 * no pool connection leaked, recovery within seconds. Prisma's own errors, captured here from real
 * faults, go through the one classification (database-errors.ts).
 */
const POOL_SIZE = 5;
const CONNECT_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 1500;
const REQUEST_BOUND_MS = 10_000;

interface Outcome {
  kind: 'read' | 'write';
  status: number;
  ms: number;
  retryAfter: string | null;
  code?: string;
  tag?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the global filter makes of an error: its status and code (503 SERVICE_UNAVAILABLE, or 500). */
function classified(error: unknown): { status: number; code: string; retryAfter?: string } {
  const result = classifyDatabaseError(error);
  return result instanceof RequestError
    ? { status: result.status, code: result.code, retryAfter: result.headers['Retry-After'] }
    : { status: 500, code: 'INTERNAL_ERROR' };
}

describe('database faults on Prisma Client reads and Database.transaction writes', () => {
  let sequence = 0;

  const f = useFaultApp({
    DB_POOL_SIZE: String(POOL_SIZE),
    DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '3000',
  });
  let pool: Database['pool'];
  let admin: Record<string, string>;

  beforeAll(async () => {
    pool = f.t.app.get(Database).pool;
    admin = { Authorization: `Bearer ${(await createApiKey(f.t.prisma, f.organizationId, { scope: 'admin' })).key}`, 'Content-Type': 'application/json' };
  });

  async function send(kind: Outcome['kind']): Promise<Outcome> {
    const tag = kind === 'write' ? `p${++sequence}` : undefined;
    const started = Date.now();
    const res =
      kind === 'read'
        ? await fetch(`${f.base}/api/v2/lists`, { headers: admin, signal: AbortSignal.timeout(30_000) })
        : await fetch(`${f.base}/api/v2/lists`, { method: 'POST', headers: admin, body: JSON.stringify({ name: tag }), signal: AbortSignal.timeout(30_000) });
    const body = (await res.json()) as { error?: { code: string } };
    return { kind, status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('retry-after'), code: body.error?.code, tag };
  }

  const succeeded = (o: Outcome) => o.status === (o.kind === 'write' ? 201 : 200);

  /** `workers` clients each alternating a read and a write while `inject` runs. */
  function underLoad(workers: number, inject: () => Promise<void>): Promise<Outcome[]> {
    return sendWhile(workers, (i) => send(i % 2 === 0 ? 'write' : 'read'), inject);
  }

  /** 503s carry Retry-After; 500 only for a write (COMMIT in flight, outcome unknown); every write is all or nothing. */
  async function expectConsistent(outcomes: Outcome[]): Promise<void> {
    expect(outcomes.filter((o) => !succeeded(o) && o.status !== 503 && !(o.kind === 'write' && o.status === 500))).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(REQUEST_BOUND_MS);
    for (const o of outcomes.filter((x) => x.status === 503)) {
      expect([o.code, o.retryAfter]).toEqual(['SERVICE_UNAVAILABLE', expect.stringMatching(/^[1-9]\d*$/)]);
    }
    await f.db.withClient(async (client) => {
      for (const o of outcomes.filter((x) => x.kind === 'write')) {
        const { rows } = await client.query<{ lists: number; events: number }>(
          `SELECT (SELECT count(*)::int FROM lists WHERE organization_id = $1 AND name = $2) AS lists,
                  (SELECT count(*)::int FROM events WHERE organization_id = $1 AND type = 'list.created' AND body::json->'data'->'list'->>'name' = $2) AS events`,
          [f.organizationId, o.tag],
        );
        const written = rows[0];
        if (succeeded(o)) expect(written).toEqual({ lists: 1, events: 1 });
        else if (o.status === 503) expect(written).toEqual({ lists: 0, events: 0 });
        else expect([0, 1]).toContain(written.lists); // 500: outcome unknown, but never half
        expect(written.events).toBe(written.lists);
      }
    });
  }

  /** No pool connection is left checked out once the app is quiet, and no one waits for one. */
  async function expectPoolWhole(): Promise<void> {
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline && (pool.totalCount !== pool.idleCount || pool.waitingCount !== 0)) await sleep(50);
    expect({ checkedOut: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }).toEqual({ checkedOut: 0, waiting: 0 });
    expect(pool.totalCount).toBeLessThanOrEqual(POOL_SIZE);
  }

  /** Reads and writes succeed again within seconds, and keep doing so; the pool is whole. */
  async function expectRecovered(): Promise<void> {
    const deadline = Date.now() + 10_000;
    let last: Outcome[] = [];
    while (Date.now() < deadline) {
      last = [await send('read'), await send('write')];
      if (last.every(succeeded)) break;
      await sleep(200);
    }
    expect(last.map((o) => o.status)).toEqual([200, 201]);
    const more = await Promise.all(Array.from({ length: 2 * POOL_SIZE }, (_, i) => send(i % 2 ? 'read' : 'write')));
    expect(more.filter((o) => !succeeded(o))).toEqual([]);
    await expectPoolWhole();
  }

  it('a backend terminated under a Prisma query and inside a Database.transaction: 503, its connection discarded, the pool whole', async () => {
    // More rounds than pool slots: a connection kept checked out per round would leave none.
    const errors: unknown[] = [];
    const database = f.t.app.get(Database);
    for (let round = 0; round < POOL_SIZE + 2; round++) {
      await f.db.withClient(async (blocker) => {
        await blocker.query('BEGIN');
        await blocker.query('LOCK TABLE lists IN ACCESS EXCLUSIVE MODE');
        // Even rounds: a Prisma read; odd rounds: a transaction that wrote, then waits on the lock.
        const running = (
          round % 2
            ? database.transaction(async (tx) => {
                await tx.query(`INSERT INTO event_retention (organization_id, pruned_position, pruned_seq, pruned_at) VALUES ($1, 0, 0, now()) ON CONFLICT DO NOTHING`, [f.organizationId]);
                return tx.query('SELECT count(*) FROM lists');
              })
            : f.t.prisma.list.findMany({ where: { organizationId: f.organizationId } })
        ).then(
          () => new Error('no error'),
          (e: unknown) => e,
        );
        expect(await terminateLockWaiters(blocker, 5000)).toBe(1);
        errors.push(await running);
        await blocker.query('ROLLBACK');
      });
      await expectPoolWhole();
    }
    // Nothing was written, so every failure is "retry later", never "outcome unknown".
    expect(errors.map((e) => classified(e))).toEqual(errors.map(() => ({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: '1' })));
    expect(await f.t.prisma.eventRetention.count({ where: { organizationId: f.organizationId } })).toBe(0);
    await expectRecovered();
  });

  it("Prisma's errors, captured from real faults, go through the one classification", async () => {
    const captured: Record<string, unknown> = {};
    // The error a Prisma call fails with (Prisma's queries start when then() is called: at once here).
    const failure = (call: PromiseLike<unknown>) =>
      Promise.resolve(call).then(
        () => new Error('no error'),
        (e: unknown) => e,
      );
    const capture = async (name: string, work: () => PromiseLike<unknown>) => {
      captured[name] = await failure(work());
    };
    // A read and a write that wait on a lock past DB_LOCK_TIMEOUT_MS (55P03), then a read whose backend is terminated while it waits (57P01).
    await f.db.withClient(async (blocker) => {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE lists IN ACCESS EXCLUSIVE MODE');
      try {
        await capture('read, lock wait timeout', () => f.t.prisma.list.findMany({ where: { organizationId: f.organizationId } }));
        await capture('write, lock wait timeout', () => f.t.prisma.list.create({ data: { organizationId: f.organizationId, name: 'never' } }));
        const running = failure(f.t.prisma.list.findMany({ where: { organizationId: f.organizationId } }));
        await sleep(200);
        await f.db.withClient((c) => c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'faults' AND wait_event_type = 'Lock'`));
        captured['read, backend terminated'] = await running;
      } finally {
        await blocker.query('ROLLBACK');
      }
    });
    // Every pool connection taken past DB_CONNECT_TIMEOUT_MS.
    const held = await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.connect()));
    try {
      await capture('read, no pool connection', () => f.t.prisma.list.count());
    } finally {
      held.forEach((c) => c.release());
    }
    // The server gone: a read and a write.
    await f.db.stopServer();
    try {
      await capture('read, server stopped', () => f.t.prisma.list.findMany({ where: { organizationId: f.organizationId } }));
      await capture('write, server stopped', () => f.t.prisma.list.create({ data: { organizationId: f.organizationId, name: 'never' } }));
    } finally {
      await f.db.startServer();
    }
    await sleep(200);
    if (process.env.SHOW_PRISMA_ERRORS) {
      for (const [name, e] of Object.entries(captured)) console.log(name, (e as Error).constructor.name, (e as { code?: string }).code, (e as Error).message, (e as { meta?: unknown }).meta, (e as { cause?: unknown }).cause);
    }
    for (const [name, error] of Object.entries(captured)) {
      expect({ name, ...classified(error) }).toEqual({ name, status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: '1' });
    }
    // Request errors that are not the database's stay what they are (bugs → 500, not "retry later").
    const notFound = await f.t.prisma.list.update({ where: { id: 'none' }, data: { name: 'x' } }).catch((e: unknown) => e);
    const noOrganization = await f.t.prisma.list.create({ data: { organizationId: 'none', name: 'x' } }).catch((e: unknown) => e);
    expect([classified(notFound), classified(noOrganization)]).toEqual([
      { status: 500, code: 'INTERNAL_ERROR' },
      { status: 500, code: 'INTERNAL_ERROR' },
    ]);
    await expectRecovered();
  });

  it('backends terminated one at a time under reads and transactional writes: 503s, nothing half-written, no leak', async () => {
    let terminated = 0;
    const outcomes = await underLoad(8, async () => {
      terminated = await f.db.terminateInRounds(8, 250, 1);
    });
    expect(terminated).toBe(8);
    expect(outcomes.filter(succeeded).length).toBeGreaterThan(0);
    await expectConsistent(outcomes);
    await expectRecovered();
  });

  it('all backends terminated at once under load, three times: recovers with every pool connection accounted for', async () => {
    let terminated = 0;
    const outcomes = await underLoad(8, async () => {
      terminated = await f.db.terminateInRounds(3, 400);
    });
    expect(terminated).toBeGreaterThanOrEqual(3);
    expect(outcomes.filter((o) => o.status === 503).length).toBeGreaterThan(0);
    await expectConsistent(outcomes);
    await expectRecovered();
  });

  it('server stopped: the read and the write answer 503 with Retry-After quickly; started again: recovers by itself', async () => {
    const down: Outcome[] = [];
    await f.db.stopServer();
    try {
      down.push(await send('read'), await send('write'));
      for (const o of down) {
        expect([o.kind, o.status, o.code, o.retryAfter]).toEqual([o.kind, 503, 'SERVICE_UNAVAILABLE', '1']);
        expect(o.ms).toBeLessThan(CONNECT_TIMEOUT_MS + 3000);
      }
    } finally {
      await f.db.startServer();
    }
    await expectConsistent(down);
    const started = Date.now();
    await expectRecovered();
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
