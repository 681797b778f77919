/**
 * Fair delivery (docs/events.md, "How it works"): each webhook has a share of an instance's attempt
 * slots (WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK, default 64 of WEBHOOK_CONCURRENCY's 256); a webhook
 * goes beyond it only into slots above the reserve (a quarter of WEBHOOK_CONCURRENCY), which stays
 * free for the webhooks under their share, and the claims go round the webhooks and organizations.
 * So a lone backlog uses the instance's slots, and another organization's events still reach its
 * receiver as if the backlog were not there. At the scale of the suite: organization A holds 2,000
 * events for a receiver that answers in 1.5 s (at most 192 in flight, about 128 a second: it lasts
 * the whole test); organization B commits an event every 200 ms for a receiver that answers at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import type { NewEvent } from '../../src/events/event-types';
import { EventsRepository } from '../../src/events/events.repository';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { Org } from '../contract/helpers';
import { adminKey } from '../contract/lifecycle-helpers';
import { waitUntil } from '../utils/run-service';
import { insertContactEvents } from '../utils/fixtures';
import { createTestApp, type TestApp } from '../utils/test-app';

jest.setTimeout(90_000);

const BACKLOG = 2000;
const B_EVENTS = 30;
/** The defaults: a webhook's share, and the most one webhook gets (WEBHOOK_CONCURRENCY less the reserve, a quarter of it). */
const SHARE = 64;
const BEYOND_SHARE = 256 - 64;

/** A receiver answering 200 after `delayMs`; records when each contact's event arrived and the most requests it had open at once. */
async function receiver(delayMs: number) {
  const arrivals = new Map<string, number>();
  let open = 0;
  let maxOpen = 0;
  const server = http.createServer((req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { contact: { id: string } } }).data.contact.id;
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      setTimeout(() => {
        open--;
        res.writeHead(200, { 'content-length': '0' }).end();
      }, delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    maxOpen: () => maxOpen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A test app (the harness's defaults, `env`, receivers on 127.0.0.1 allowed) and a pg client on its database. */
async function appAndClient(env: Record<string, string>): Promise<{ t: TestApp; pg: Client }> {
  const t = await createTestApp({ WEBHOOK_ALLOW_INSECURE: 'true', ...env });
  const pg = new Client({ connectionString: t.database.url });
  await pg.connect();
  return { t, pg };
}

async function closeBoth(t: TestApp, pg: Client): Promise<void> {
  await pg.end();
  await t.close();
}

describe('fair delivery between organizations', () => {
  let t: TestApp;
  let pg: Client;
  // Default concurrency and per-webhook cap: what an instance ships with.
  beforeAll(async () => ({ t, pg } = await appAndClient({ SHUTDOWN_TIMEOUT_MS: '3000' })));
  afterAll(() => closeBoth(t, pg));

  async function webhookOf(url: string) {
    const org = await Org.create(t);
    const created = await t.http().post('/api/v2/webhooks').set('Authorization', `Bearer ${await adminKey(org)}`).send({ url });
    expect(created.status).toBe(201);
    return org.id;
  }

  it('a lone webhook with a backlog takes more attempt slots than its share, all but the reserve', async () => {
    const slow = await receiver(1500);
    try {
      const org = await webhookOf(slow.url);
      await insertContactEvents(pg, org, 'lone', 0, 399);
      await waitUntil('the backlog arrived', () => slow.arrivals.size >= 400, 30_000);
      expect(slow.maxOpen()).toBeGreaterThan(SHARE);
      expect(slow.maxOpen()).toBeLessThanOrEqual(BEYOND_SHARE);
    } finally {
      await slow.close();
    }
  });

  it("B's events reach an instant receiver within 2 s of their commit (p99) while A's backlog to a 1.5 s receiver drains beyond its share", async () => {
    const slow = await receiver(1500);
    const fast = await receiver(0);
    try {
      const a = await webhookOf(slow.url);
      const b = await webhookOf(fast.url);
      // A's backlog, committed in 20 transactions, as the write paths make events.
      for (let from = 0; from < BACKLOG; from += 100) await insertContactEvents(pg, a, 'a', from, from + 99);
      await waitUntil("A's receiver holds more than its share", () => slow.maxOpen() > SHARE, 20_000);

      const committed = new Map<string, number>();
      for (let n = 0; n < B_EVENTS; n++) {
        await t.prisma.database.transaction((tx) =>
          t.app.get(EventsRepository).record(tx, [{ organizationId: b, type: 'contact.updated', contactId: `b${n}`, email: `b${n}@example.com`, data: { contact: { id: `b${n}` } } } as unknown as NewEvent]),
        );
        committed.set(`b${n}`, Date.now());
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await waitUntil("B's events arrived", () => fast.arrivals.size >= B_EVENTS, 30_000);

      const latencies = [...committed].map(([id, at]) => (fast.arrivals.get(id) ?? Infinity) - at).sort((x, y) => x - y);
      const p99 = latencies[Math.ceil(0.99 * latencies.length) - 1];
      expect(p99).toBeLessThanOrEqual(2000);
      // The backlog was there all along, and left the reserve free.
      expect(slow.arrivals.size).toBeLessThan(BACKLOG);
      expect(slow.maxOpen()).toBeLessThanOrEqual(BEYOND_SHARE);
    } finally {
      await slow.close();
      await fast.close();
    }
  });
});

describe('shares and the reserve in the fan-out and claim statements (worker off: the statements alone)', () => {
  let t: TestApp;
  let pg: Client;
  beforeAll(async () => ({ t, pg } = await appAndClient({ WEBHOOK_DELIVERY: 'false' })));
  afterAll(() => closeBoth(t, pg));

  async function webhook(): Promise<{ org: string; id: string; key: string }> {
    const org = await Org.create(t);
    const key = await adminKey(org);
    const created = await t.http().post('/api/v2/webhooks').set('Authorization', `Bearer ${key}`).send({ url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(201);
    return { org: org.id, id: created.body.webhook.id as string, key };
  }
  const lease = (token: string, limit: number) => ({ owner: 'test', token, seconds: 30, limit });
  const perWebhook = (taken: { webhookId: string }[]) => taken.reduce<Record<string, number>>((n, d) => ({ ...n, [d.webhookId]: (n[d.webhookId] ?? 0) + 1 }), {});

  it('a webhook takes beyond its share only the free slots above the reserve, after the shares of the others', async () => {
    const repository = t.app.get(WebhooksRepository);
    // Share 2, reserve 3. Alone, with 10 free slots: all but the reserve, 7, from the feed; the rest stays in it.
    const lone = await webhook();
    await insertContactEvents(pg, lone.org, 'l', 0, 9);
    const alone = await repository.fanOut(10, lease('l1', 10), { cap: 2, reserve: 3, inFlight: new Map() }, true);
    expect({ taken: alone.taken.length, inserted: alone.inserted, full: alone.full }).toEqual({ taken: 7, inserted: 0, full: true });
    expect((await t.http().delete(`/api/v2/webhooks/${lone.id}`).set('Authorization', `Bearer ${lone.key}`)).status).toBe(200);

    // A already at its share here, B with nothing in flight, 6 free slots: B's event first, then A
    // up to the reserve (2); A's third event read is left pending for the claim.
    const a = await webhook();
    const b = await webhook();
    await insertContactEvents(pg, a.org, 'a', 0, 9);
    await insertContactEvents(pg, b.org, 'b', 0, 0);
    const shared = await repository.fanOut(6, lease('s1', 6), { cap: 2, reserve: 3, inFlight: new Map([[a.id, 2]]) }, true);
    expect(perWebhook(shared.taken)).toEqual({ [a.id]: 2, [b.id]: 1 });
    expect(shared.inserted).toBe(1);

    // The claim: A beyond its share gets nothing from the reserve, and a slot above it.
    const inFlight = new Map([[a.id, 4], [b.id, 1]]);
    expect(await repository.claim('test', 'c1', 30, 3, { cap: 2, reserve: 3, inFlight })).toEqual([]);
    expect(perWebhook(await repository.claim('test', 'c2', 30, 6, { cap: 2, reserve: 3, inFlight }))).toEqual({ [a.id]: 1 });
  });
});
