import { Database } from '../../src/database/database';
import { classifyDatabaseError } from '../../src/database/database-errors';
import { RequestError } from '../../src/errors/request-error';
import { useFaultApp } from './fault-app';
import { PrismaWriteProbeModule, probeEmails } from './prisma-write-probe.module';

/**
 * The database-fault promises on the Prisma Client path (docs/database-faults.md): a read served by
 * Prisma (GET /api/v2/lists) and a write in a Prisma interactive transaction (the test-only
 * POST /test/prisma-write), on a PostgreSQL this file owns. Backends terminated one at a time and
 * all at once under load, the server stopped and started: 503 + Retry-After (500 only for a write
 * whose COMMIT outcome is unknown), nothing half-written, no pool connection leaked, recovery
 * within seconds. Prisma's own errors, captured here from real faults, go through the one
 * classification (database-errors.ts).
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

describe('database faults on the Prisma Client path', () => {
  let sequence = 0;

  const f = useFaultApp(
    {
      DB_POOL_SIZE: String(POOL_SIZE),
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '3000',
    },
    { modules: [PrismaWriteProbeModule] },
  );
  let pool: Database['pool'];

  beforeAll(() => {
    pool = f.t.app.get(Database).pool;
  });

  async function send(kind: Outcome['kind']): Promise<Outcome> {
    const tag = kind === 'write' ? `p${++sequence}` : undefined;
    const started = Date.now();
    const res =
      kind === 'read'
        ? await fetch(`${f.base}/api/v2/lists`, { headers: f.auth, signal: AbortSignal.timeout(30_000) })
        : await fetch(`${f.base}/test/prisma-write?tag=${tag}&listId=${f.listId}`, { method: 'POST', headers: f.auth, body: '{}', signal: AbortSignal.timeout(30_000) });
    const body = (await res.json()) as { error?: { code: string } };
    return { kind, status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('retry-after'), code: body.error?.code, tag };
  }

  /** `workers` clients each alternating a Prisma read and a Prisma transactional write while `inject` runs. */
  async function underLoad(workers: number, inject: () => Promise<void>): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    let running = true;
    const loops = Array.from({ length: workers }, async (_, w) => {
      for (let i = w; running; i++) outcomes.push(await send(i % 2 === 0 ? 'write' : 'read'));
    });
    try {
      await inject();
    } finally {
      running = false;
      await Promise.all(loops);
    }
    return outcomes;
  }

  /** 503s carry Retry-After; 500 only for a write (COMMIT in flight, outcome unknown); every write is all or nothing. */
  async function expectConsistent(outcomes: Outcome[]): Promise<void> {
    expect(outcomes.filter((o) => ![200, 503].includes(o.status) && !(o.kind === 'write' && o.status === 500))).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(REQUEST_BOUND_MS);
    for (const o of outcomes.filter((x) => x.status === 503)) {
      expect([o.code, o.retryAfter]).toEqual(['SERVICE_UNAVAILABLE', expect.stringMatching(/^[1-9]\d*$/)]);
    }
    await f.db.withClient(async (client) => {
      for (const o of outcomes.filter((x) => x.kind === 'write')) {
        const { rows } = await client.query<{ contacts: number; memberships: number }>(
          `SELECT (SELECT count(*)::int FROM contacts WHERE email = ANY($1::text[])) AS contacts,
                  (SELECT count(*)::int FROM list_memberships m JOIN contacts c ON c.id = m.contact_id WHERE c.email = ANY($1::text[])) AS memberships`,
          [probeEmails(o.tag!)],
        );
        const written = rows[0];
        if (o.status === 200) expect(written).toEqual({ contacts: 2, memberships: 2 });
        else if (o.status === 503) expect(written).toEqual({ contacts: 0, memberships: 0 });
        else expect([0, 2]).toContain(written.contacts); // 500: outcome unknown, but never half
        expect(written.memberships).toBe(written.contacts);
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

  /** Reads and writes answer 200 again within seconds, and keep doing so; the pool is whole. */
  async function expectRecovered(): Promise<void> {
    const deadline = Date.now() + 10_000;
    let last: Outcome[] = [];
    while (Date.now() < deadline) {
      last = [await send('read'), await send('write')];
      if (last.every((o) => o.status === 200)) break;
      await sleep(200);
    }
    expect(last.map((o) => o.status)).toEqual([200, 200]);
    const more = await Promise.all(Array.from({ length: 2 * POOL_SIZE }, (_, i) => send(i % 2 ? 'read' : 'write')));
    expect(more.map((o) => o.status)).toEqual(more.map(() => 200));
    await expectPoolWhole();
  }

  it('a backend terminated inside an open interactive transaction: its pool connection comes back (the upstream leak)', async () => {
    // More rounds than pool slots: with Prisma's own close path every round leaks one connection.
    const errors: unknown[] = [];
    for (let round = 0; round < POOL_SIZE + 2; round++) {
      const error = await f.t.prisma
        .$transaction(async (tx) => {
          await tx.list.findMany({ where: { organizationId: f.organizationId } });
          await f.db.terminateBackends();
          await sleep(50);
          // Odd rounds end with a query (Prisma then rolls back), even rounds go straight to COMMIT.
          if (round % 2) await tx.list.count({ where: { organizationId: f.organizationId } });
          return 'committed';
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      errors.push(error);
      await expectPoolWhole();
    }
    // Nothing was written, so every failure is "retry later", never "outcome unknown".
    expect(errors.map((e) => classified(e))).toEqual(errors.map(() => ({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: '1' })));
    expect(await f.t.prisma.list.count({ where: { organizationId: f.organizationId } })).toBe(1);
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
    // A raw query whose backend is terminated while it runs (P2010, SQLSTATE 57P01 in meta.driverAdapterError).
    {
      const running = failure(f.t.prisma.$queryRaw`SELECT pg_sleep(1)`);
      await sleep(200);
      await f.db.terminateBackends();
      captured['raw query, backend terminated'] = await running;
    }
    // A typed query whose backend is terminated while it waits on a lock (DriverAdapterError, cause.originalCode 57P01).
    // Statement timeout on a typed query and on a raw one (57014).
    await f.db.withClient(async (blocker) => {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE lists IN ACCESS EXCLUSIVE MODE');
      try {
        await capture('typed query, statement timeout', () => f.t.prisma.list.findMany({ where: { organizationId: f.organizationId } }));
        await capture('interactive transaction, statement timeout', () =>
          f.t.prisma.$transaction((tx) => tx.list.create({ data: { organizationId: f.organizationId, name: 'never' } })),
        );
        const running = failure(f.t.prisma.list.findMany({ where: { organizationId: f.organizationId } }));
        await sleep(200);
        await f.db.withClient((c) => c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'faults' AND wait_event_type = 'Lock'`));
        captured['typed query, backend terminated'] = await running;
      } finally {
        await blocker.query('ROLLBACK');
      }
    });
    await capture('raw query, statement timeout', () => f.t.prisma.$queryRaw`SELECT pg_sleep(3)`);
    // Every pool connection taken: a transaction that cannot start within maxWait (P2028).
    const held = await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.connect()));
    setTimeout(() => held.forEach((c) => c.release()), 500);
    await capture('interactive transaction, maxWait', () => f.t.prisma.$transaction(() => Promise.resolve(), { maxWait: 100 }));
    await sleep(600);
    // The server gone: typed query, raw query, interactive transaction.
    await f.db.stopServer();
    try {
      await capture('typed query, server stopped', () => f.t.prisma.list.findMany({ where: { organizationId: f.organizationId } }));
      await capture('raw query, server stopped', () => f.t.prisma.$queryRaw`SELECT 1`);
      await capture('interactive transaction, server stopped', () => f.t.prisma.$transaction((tx) => tx.list.count()));
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
    const badColumn = await f.t.prisma.$queryRawUnsafe('SELECT no_such_column FROM lists').catch((e: unknown) => e);
    expect([classified(notFound), classified(badColumn)]).toEqual([
      { status: 500, code: 'INTERNAL_ERROR' },
      { status: 500, code: 'INTERNAL_ERROR' },
    ]);
    await expectRecovered();
  });

  it('backends terminated one at a time under Prisma reads and transactional writes: 503s, nothing half-written, no leak', async () => {
    let terminated = 0;
    const outcomes = await underLoad(8, async () => {
      terminated = await f.db.terminateInRounds(8, 250, 1);
    });
    expect(terminated).toBe(8);
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(0);
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

  it('server stopped: the Prisma read and write answer 503 with Retry-After quickly; started again: recovers by itself', async () => {
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
