/**
 * docs/reliability.md, logs: the webhook worker's failed statements are logged as the database's
 * fault lines are, naming the cause (SQLSTATE, socket code, connect timeout, ...) with the driver's
 * message, one line per statement and cause per second with `repeats`, no stack, no address or
 * secret. A real fault here: another session holds the worker's tables (LOCK TABLE), so the
 * fan-out and claim statements end at lock_timeout (55P03, DB_LOCK_TIMEOUT_MS).
 */
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { Org } from '../contract/helpers';
import { adminKey } from '../contract/lifecycle-helpers';
import { createTestApp, type TestApp } from '../utils/test-app';

jest.setTimeout(45_000);

type Line = { context: unknown; entry: unknown; message: unknown };

describe('webhook worker fault lines', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The fault is the lock time-out (300 ms). The statement time-out only has to stay above it: at
    // 1 s, under CI's load (two Jest runs side by side on 2 cores) a statement that was merely slow
    // could end in 57014 instead, a line with another cause than the one this test is about.
    t = await createTestApp({
      IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_POLL_MS: '50',
      DB_STATEMENT_TIMEOUT_MS: '30000', DB_LOCK_TIMEOUT_MS: '300',
    });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  it('fan-out and claim failures name their cause (55P03), once per cause per second, with no stack, address or secret', async () => {
    const { org, list } = await Org.withList(t);
    const created = await t.http().post('/api/v2/webhooks').set('Authorization', `Bearer ${await adminKey(org)}`).send({ url: 'http://127.0.0.1:9/hook' }).expect(201);
    const secret = created.body.secret as string;
    await org.postContact({ email: 'fault.line@example.com', listIds: [list] }).expect(201);

    const lines: Line[] = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(function (this: Logger, entry: unknown, message?: unknown) {
      lines.push({ context: (this as unknown as { context?: string }).context, entry, message });
    });
    const blocker = new Client({ connectionString: t.database.url });
    await blocker.connect();
    // How long the tables were held (3 s asked; a loaded machine may oversleep): every fault falls in it.
    const held = { ms: 0 };
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE webhooks, webhook_deliveries IN ACCESS EXCLUSIVE MODE');
      const lockedAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await blocker.query('ROLLBACK');
      held.ms = performance.now() - lockedAt;
    } finally {
      await blocker.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 1200)); // the repeats counted in the last second
    jest.restoreAllMocks();

    const worker = lines.filter((line) => line.context === 'Webhooks');
    const texts = worker.map((line) => String(line.message));
    for (const statement of ['fan-out', 'claim']) {
      const own = worker.filter((line) => String(line.message).startsWith(`Webhook ${statement} failed`));
      expect(own.length).toBeGreaterThan(0);
      for (const line of own) {
        expect(line.message).toMatch(new RegExp(`^Webhook ${statement} failed \\(55P03\\): canceling statement due to lock timeout`));
        expect(line.entry).toEqual({ cause: '55P03', repeats: expect.any(Number) });
      }
      // ~3 s of faults: at most one line a second for the cause (+ the first, + the repeats' last):
      // 5 lines when the hold took 3.0-3.99 s, one more per further second a loaded machine added.
      expect(own.length).toBeLessThanOrEqual(Math.floor(held.ms / 1000) + 2);
    }
    for (const text of texts) {
      expect(text).not.toMatch(/\n|\bat .*\.ts:\d+/); // one line, no stack
      expect(text).not.toContain('fault.line@example.com');
      expect(text).not.toContain(secret);
      expect(text).not.toContain('retry later'); // a 503's text is not a cause
    }
  });
});
