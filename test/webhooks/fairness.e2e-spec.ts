/**
 * Fair delivery (docs/events.md, "How it works"): one webhook's backlog never takes more than its
 * share of an instance's attempt slots (WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK, default 64 of
 * WEBHOOK_CONCURRENCY's 256), and the claims go round the webhooks and organizations, so another
 * organization's events reach its receiver as if the backlog were not there. At the scale of the
 * suite: organization A holds 2,000 events for a receiver that answers in 1.5 s (drained at its
 * share, about 43 a second, it lasts the whole test); organization B commits an event every 200 ms
 * for a receiver that answers at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import type { NewEvent } from '../../src/events/event-types';
import { EventsRepository } from '../../src/events/events.repository';
import { Org } from '../contract/helpers';
import { adminKey } from '../contract/lifecycle-helpers';
import { waitUntil } from '../utils/run-service';
import { insertContactEvents } from '../utils/fixtures';
import { createTestApp, type TestApp } from '../utils/test-app';

jest.setTimeout(90_000);

const BACKLOG = 2000;
const B_EVENTS = 30;

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

describe('fair delivery between organizations', () => {
  let t: TestApp;
  let pg: Client;
  beforeAll(async () => {
    // Default concurrency and per-webhook cap: what an instance ships with.
    t = await createTestApp({ IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', WEBHOOK_ALLOW_INSECURE: 'true', SHUTDOWN_TIMEOUT_MS: '3000' });
    pg = new Client({ connectionString: t.database.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await t.close();
  });

  async function webhookOf(url: string) {
    const org = await Org.create(t);
    const created = await t.http().post('/api/v2/webhooks').set('Authorization', `Bearer ${await adminKey(org)}`).send({ url });
    expect(created.status).toBe(201);
    return org.id;
  }

  it("B's events reach an instant receiver within 2 s of their commit (p99) while A's backlog to a 1.5 s receiver drains at its share", async () => {
    const slow = await receiver(1500);
    const fast = await receiver(0);
    try {
      const a = await webhookOf(slow.url);
      const b = await webhookOf(fast.url);
      // A's backlog, committed in 20 transactions, as the write paths make events.
      for (let from = 0; from < BACKLOG; from += 100) await insertContactEvents(pg, a, 'a', from, from + 99);
      await waitUntil("A's receiver holds a full share", () => slow.maxOpen() >= 64, 20_000);

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
      // The backlog was there all along, and took no more than its share of the slots.
      expect(slow.arrivals.size).toBeLessThan(BACKLOG);
      expect(slow.maxOpen()).toBeLessThanOrEqual(64);
    } finally {
      await slow.close();
      await fast.close();
    }
  });
});
