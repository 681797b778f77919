/**
 * Contract 14: "several instances share the delivery work: every attempt is made by exactly one
 * instance; an instance that dies mid-attempt has its attempt retried by another within a minute".
 * Three spawned service processes on one database deliver to one local receiver; then one of them
 * is killed with SIGKILL while the receiver holds its request open.
 */
import { Client } from 'pg';
import request from 'supertest';
import { createOrgOn, insertContactEvents } from '../utils/fixtures';
import { freePort, isListening } from '../utils/net';
import { type ServiceProcess, startService, waitUntil } from '../utils/run-service';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';
import { startReceiver } from '../utils/webhook-receiver';

jest.setTimeout(90_000);

const LEASE_SECONDS = 12;

describe('three instances share webhook delivery', () => {
  let database: TestDatabase;
  const instances: { service: ServiceProcess; port: number }[] = [];
  let pg: Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    pg = new Client({ connectionString: database.url });
    await pg.connect();
    await Promise.all(
      [0, 1, 2].map(async () => {
        const port = await freePort();
        const service = startService({
          DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn',
          IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '1000000', REDIS_URL: undefined,
          WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_POLL_MS: '100', WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS), WEBHOOK_RETRY_DELAYS: '1,1,1',
        });
        instances.push({ service, port });
        await waitUntil('the instance listens', () => isListening(port), 150_000).catch((error: Error) => {
          throw new Error(`${error.message}:\n${service.output().slice(-3000)}`);
        });
      }),
    );
  }, 180_000);

  afterAll(async () => {
    for (const { service } of instances) if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    await Promise.all(instances.map(({ service }) => service.exit));
    await pg?.end();
    await database?.drop();
  });

  async function webhookFor(url: string) {
    const org = await createOrgOn(database.url, { scope: 'admin' });
    const res = await request(`http://127.0.0.1:${instances[0].port}`).post('/api/v2/webhooks').set('Authorization', `Bearer ${org.apiKey}`).send({ url });
    expect(res.status).toBe(201);
    return { orgId: org.id, webhookId: res.body.webhook.id as string };
  }

  /** `n` events in `transactions` commits, as the write paths make them. */
  async function writeEvents(orgId: string, n: number, transactions: number): Promise<void> {
    const per = Math.ceil(n / transactions);
    for (let from = 0; from < n; from += per) await insertContactEvents(pg, orgId, 'c', from, Math.min(n, from + per) - 1);
  }

  it('delivers every event, each attempt made by exactly one instance', async () => {
    const receiver = await startReceiver();
    try {
      const { orgId, webhookId } = await webhookFor(receiver.url);
      await writeEvents(orgId, 600, 30);
      await waitUntil('600 events received', () => receiver.received.length >= 600, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // a duplicate attempt would arrive now
      const ids = receiver.received.map((hook) => hook.headers['webhook-id'] as string);
      expect(new Set(ids).size).toBe(600);
      expect(ids).toHaveLength(600); // no event attempted twice
      const { rows } = await pg.query(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE state = 'delivered' AND attempt_count = 1 AND jsonb_array_length(attempts) = 1)::int AS once,
                count(DISTINCT leased_by)::int AS instances
         FROM webhook_deliveries WHERE webhook_id = $1`,
        [webhookId],
      );
      expect(rows[0]).toMatchObject({ n: 600, once: 600 });
      expect(rows[0].instances).toBeGreaterThanOrEqual(1);
    } finally {
      await receiver.close();
    }
  });

  it('an instance killed with SIGKILL mid-attempt: another makes the attempt again within a minute, nothing lost', async () => {
    let held = false;
    const receiver = await startReceiver(() => {
      if (held) return { status: 200 };
      held = true;
      return 'hold'; // the first request stays open: its instance is mid-attempt
    });
    try {
      const { orgId, webhookId } = await webhookFor(receiver.url);
      await writeEvents(orgId, 50, 5);
      await waitUntil('the held request', () => receiver.received.length >= 1, 20_000);
      const heldId = receiver.received[0].headers['webhook-id'] as string;
      // A first attempt is named by the fan-out's lease record (its row is written with its outcome), a retry by its row.
      const { rows } = await pg.query(
        `SELECT leased_by FROM webhook_deliveries WHERE webhook_id = $1 AND 'evt_' || replace(event_id::text, '-', '') = $2
         UNION ALL
         SELECT l.leased_by FROM webhook_leases l JOIN events e ON e.seq = ANY(l.seqs) WHERE l.webhook_id = $1 AND 'evt_' || replace(e.id::text, '-', '') = $2`,
        [webhookId, heldId],
      );
      expect(rows).toHaveLength(1);
      const pid = Number(String(rows[0].leased_by).split(':')[1]);
      const victim = instances.find(({ service }) => service.child.pid === pid);
      expect(victim).toBeDefined();
      victim!.service.child.kill('SIGKILL');
      const killedAt = Date.now();
      await victim!.service.exit;

      await waitUntil('the held event attempted again', () => receiver.received.filter((h) => h.headers['webhook-id'] === heldId).length >= 2, 60_000);
      const again = receiver.received.filter((h) => h.headers['webhook-id'] === heldId)[1];
      expect(again.at - killedAt).toBeLessThan(60_000);
      await waitUntil('all 50 delivered', async () => {
        const r = await pg.query(`SELECT count(*) FILTER (WHERE state = 'delivered')::int AS n FROM webhook_deliveries WHERE webhook_id = $1`, [webhookId]);
        return r.rows[0].n === 50;
      }, 30_000);
      expect(new Set(receiver.received.map((h) => h.headers['webhook-id'])).size).toBe(50);
      const log = await pg.query(`SELECT attempts FROM webhook_deliveries WHERE webhook_id = $1 AND 'evt_' || replace(event_id::text, '-', '') = $2`, [webhookId, heldId]);
      expect(log.rows[0].attempts).toEqual([
        { at: expect.any(String), status: null, error: expect.stringMatching(/instance .* stopped/) },
        { at: expect.any(String), status: 200, error: null },
      ]);
    } finally {
      await receiver.close();
    }
  });
});
