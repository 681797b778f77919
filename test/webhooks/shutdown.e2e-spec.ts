/**
 * Shutdown with webhook attempts in flight (docs/events.md): they get the shutdown window
 * (SHUTDOWN_TIMEOUT_MS) to end and have their outcomes written; those still under way at its end
 * are stopped and released, pending and due at once, so that another instance makes them at its
 * next claim rather than after their lease (WEBHOOK_LEASE_SECONDS, 30 s here).
 */
import { Client } from 'pg';
import type { NewEvent } from '../../src/events/event-types';
import { EventsRepository } from '../../src/events/events.repository';
import { Org } from '../contract/helpers';
import { adminKey } from '../contract/lifecycle-helpers';
import { waitUntil } from '../utils/run-service';
import { createTestApp, type TestApp } from '../utils/test-app';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';
import { startReceiver } from '../utils/webhook-receiver';

jest.setTimeout(60_000);

const ENV = { IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_POLL_MS: '50', WEBHOOK_LEASE_SECONDS: '30', SHUTDOWN_TIMEOUT_MS: '3000' };

describe('shutdown with webhook attempts in flight', () => {
  let database: TestDatabase;
  let pg: Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    pg = new Client({ connectionString: database.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await database.drop();
  });
  const query = async <T extends object>(text: string, values: unknown[] = []): Promise<T[]> => (await pg.query<T>(text, values)).rows;

  async function webhookOf(t: TestApp, url: string) {
    const org = await Org.create(t);
    const created = await t.http().post('/api/v2/webhooks').set('Authorization', `Bearer ${await adminKey(org)}`).send({ url });
    expect(created.status).toBe(201);
    const id = created.body.webhook.id as string;
    const record = (contactId: string) =>
      t.prisma.database.transaction((tx) =>
        t.app.get(EventsRepository).record(tx, [{ organizationId: org.id, type: 'contact.updated', contactId, email: `${contactId}@example.com`, data: { contact: { id: contactId } } } as unknown as NewEvent]),
      );
    return { id, record };
  }

  it('records the attempts that end within SHUTDOWN_TIMEOUT_MS, and releases the others to another instance at once', async () => {
    const slow = await startReceiver(() => ({ status: 200, delayMs: 1000 }));
    const stuck = await startReceiver((_hook, i) => (i === 0 ? 'hold' : { status: 200 }));
    let second: TestApp | undefined;
    try {
      const first = await createTestApp(ENV, { database });
      const a = await webhookOf(first, slow.url);
      const b = await webhookOf(first, stuck.url);
      await a.record('a1');
      await b.record('b1');
      await waitUntil('both attempts under way', () => slow.received.length === 1 && stuck.received.length === 1);

      const began = Date.now();
      await first.close(); // the worker's drain: the window, then the release
      const took = Date.now() - began;
      expect(took).toBeLessThan(5000); // the 3 s window, not the 10 s attempt timeout

      const rows = await query<{ webhook_id: string; state: string; attempts: { status: number | null; error: string | null }[]; due: boolean; lease_token: string | null }>(
        `SELECT webhook_id, state, attempts, next_attempt_at <= now() AS due, lease_token FROM webhook_deliveries WHERE webhook_id = ANY($1)`,
        [[a.id, b.id]],
      );
      const byWebhook = new Map(rows.map((row) => [row.webhook_id, row]));
      expect(byWebhook.get(a.id)).toMatchObject({ state: 'delivered', attempts: [{ status: 200, error: null }], lease_token: null });
      expect(byWebhook.get(b.id)).toMatchObject({
        state: 'pending',
        due: true,
        lease_token: null,
        attempts: [{ status: null, error: 'no answer recorded: the instance making the attempt stopped' }],
      });
      expect(await query('SELECT 1 FROM webhook_leases')).toHaveLength(0);

      // Another instance makes the released attempt at its first claim, long before a lease would end.
      const restarted = Date.now();
      second = await createTestApp(ENV, { database });
      await waitUntil('the released attempt made again', () => stuck.received.length === 2, 10_000);
      expect(Date.now() - restarted).toBeLessThan(10_000);
      expect(stuck.received[1].headers['webhook-id']).toBe(stuck.received[0].headers['webhook-id']);
      await waitUntil('recorded delivered', async () => (await query<{ state: string }>(`SELECT state FROM webhook_deliveries WHERE webhook_id = $1`, [b.id]))[0]?.state === 'delivered');
      expect(slow.received).toHaveLength(1);
    } finally {
      await second?.close();
      await slow.close();
      await stuck.close();
    }
  });
});
