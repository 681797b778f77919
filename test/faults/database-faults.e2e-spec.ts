import { Database } from '../../src/database/database';
import { sendWhile, useFaultApp } from './fault-app';

/**
 * Database faults against the running app, on a PostgreSQL this file owns: backends terminated
 * one at a time and all at once under concurrent batch load, the server stopped and started, a
 * statement that hangs on a lock. After each: the process is alive (an unhandled 'error' event
 * would fail this file), no request outlived the configured timeouts, every 200 answer's contacts
 * and stored answer exist, a 503 wrote nothing and carries Retry-After, and normal answers return.
 */
const CONNECT_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 1500;
/** Longest any request may take while faults are injected: pool wait + a few statements' timeouts, with room for a loaded machine. */
const REQUEST_BOUND_MS = 10_000;

interface Outcome {
  status: number;
  ms: number;
  requestId: string;
  retryAfter: string | null;
  code?: string;
  emails: string[];
}

describe('database faults', () => {
  let sequence = 0;

  const f = useFaultApp({
    DB_POOL_SIZE: '5',
    DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    // No lock_timeout: the "statement that hangs" below waits on a table lock and must be ended
    // by statement_timeout (a lock wait is test/contacts/lock-wait.e2e-spec.ts).
    DB_LOCK_TIMEOUT_MS: '0',
    DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '3000',
  });

  async function postBatch(size = 10): Promise<Outcome> {
    const emails = Array.from({ length: size }, (_, i) => `f${++sequence}-${i}@example.com`);
    const started = Date.now();
    const res = await fetch(`${f.base}/api/v2/contacts/batch`, {
      method: 'POST',
      headers: f.auth,
      body: JSON.stringify({ contacts: emails.map((email) => ({ email, listIds: [f.listId], fields: { city: 'Oslo' } })) }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json()) as { error?: { code: string } };
    return {
      status: res.status,
      ms: Date.now() - started,
      requestId: res.headers.get('x-request-id') ?? '',
      retryAfter: res.headers.get('retry-after'),
      code: body.error?.code,
      emails,
    };
  }

  /** `workers` clients sending batches back to back while `inject` runs; every answer is returned. */
  function underLoad(workers: number, inject: () => Promise<void>): Promise<Outcome[]> {
    return sendWhile(workers, () => postBatch(), inject);
  }

  /** Every promise of the faults, checked on the database itself (not through the app). */
  async function expectConsistent(outcomes: Outcome[]): Promise<void> {
    expect(outcomes.map((o) => o.status).filter((s) => ![200, 503, 500].includes(s))).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(REQUEST_BOUND_MS);
    for (const o of outcomes.filter((x) => x.status === 503)) {
      expect([o.code, o.retryAfter]).toEqual(['SERVICE_UNAVAILABLE', expect.stringMatching(/^[1-9]\d*$/)]);
    }
    await f.db.withClient(async (client) => {
      const count = async (sql: string, values: unknown[]) => (await client.query<{ n: number }>(sql, values)).rows[0].n;
      for (const o of outcomes) {
        const contacts = await count('SELECT count(*)::int AS n FROM contacts WHERE email = ANY($1::text[])', [o.emails]);
        const memberships = await count(
          'SELECT count(*)::int AS n FROM list_memberships m JOIN contacts c ON c.id = m.contact_id WHERE c.email = ANY($1::text[])',
          [o.emails],
        );
        const stored = await count('SELECT count(*)::int AS n FROM stored_responses WHERE request_id = $1', [o.requestId]);
        if (o.status === 200) expect({ contacts, memberships, stored }).toEqual({ contacts: 10, memberships: 10, stored: 1 });
        // 503: nothing written. (500 = connection lost while COMMIT was in flight: outcome unknown by contract.)
        if (o.status === 503) expect({ contacts, memberships, stored }).toEqual({ contacts: 0, memberships: 0, stored: 0 });
      }
    });
  }

  /** The service answers normally again within a few seconds, with every pool connection accounted for. */
  async function expectRecovered(): Promise<void> {
    const deadline = Date.now() + 10_000;
    let last: Outcome | undefined;
    while (Date.now() < deadline) {
      last = await postBatch();
      if (last.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(last?.status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await postBatch()).status).toBe(200);
    const ready = await fetch(`${f.base}/health/ready`);
    expect(ready.status).toBe(200);
    const pool = f.t.app.get(Database).pool;
    expect(pool.waitingCount).toBe(0);
    expect(pool.totalCount).toBeLessThanOrEqual(5);
  }


  it('backends terminated one at a time under concurrent batches: no leak, no hang, nothing half-written', async () => {
    let terminated = 0;
    const outcomes = await underLoad(8, async () => {
      terminated = await f.db.terminateInRounds(8, 250, 1);
    });
    expect(terminated).toBe(8);
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(0);
    await expectConsistent(outcomes);
    await expectRecovered();
  });

  it('all backends terminated at once under load, three times: the process survives and recovers', async () => {
    let terminated = 0;
    const outcomes = await underLoad(8, async () => {
      terminated = await f.db.terminateInRounds(3, 400);
    });
    expect(terminated).toBeGreaterThanOrEqual(3);
    await expectConsistent(outcomes);
    await expectRecovered();
  });

  it('server stopped: 503 with Retry-After quickly and /health/ready 503; started again: recovers by itself', async () => {
    await f.db.stopServer();
    try {
      const down = await postBatch();
      expect([down.status, down.code, down.retryAfter]).toEqual([503, 'SERVICE_UNAVAILABLE', '1']);
      expect(down.ms).toBeLessThan(CONNECT_TIMEOUT_MS + 3000);
      const started = Date.now();
      const ready = await fetch(`${f.base}/health/ready`);
      expect(ready.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(5000);
      const lists = await fetch(`${f.base}/api/v2/lists`, { headers: f.auth });
      expect(lists.status).toBe(503);
      expect(lists.headers.get('retry-after')).toBe('1');
    } finally {
      await f.db.startServer();
    }
    await expectRecovered();
  });

  it('a statement that hangs on a lock is cancelled by statement_timeout: 503, nothing written, then normal answers', async () => {
    const outcome = await f.db.withClient(async (blocker) => {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE stored_responses IN ACCESS EXCLUSIVE MODE');
      try {
        return await postBatch();
      } finally {
        await blocker.query('ROLLBACK');
      }
    });
    expect([outcome.status, outcome.code, outcome.retryAfter]).toEqual([503, 'SERVICE_UNAVAILABLE', '1']);
    expect(outcome.ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 100);
    expect(outcome.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 5000);
    await expectConsistent([outcome]);
    await expectRecovered();
  });
});
