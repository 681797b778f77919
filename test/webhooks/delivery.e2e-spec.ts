/**
 * Webhook delivery (contract 14/16) on one instance, to a local receiver (WEBHOOK_ALLOW_INSECURE=true),
 * with a retry schedule of fractions of a second. Events are written as the write paths write them
 * (EventsRepository.record in a transaction), so these tests do not depend on which path emits what.
 */
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { EventsRepository } from '../../src/events/events.repository';
import type { NewEvent } from '../../src/events/event-types';
import { WebhookAddressPolicy } from '../../src/webhooks/webhook-address.policy';
import { runIn } from '../../src/database/statements';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { WEBHOOK_COMPLETE } from '../../src/webhooks/webhooks.statements';
import { Org, type Res } from '../contract/helpers';
import { adminKey } from '../contract/lifecycle-helpers';
import { waitUntil } from '../utils/run-service';
import { createTestApp, type TestApp } from '../utils/test-app';
import { type Answer, startReceiver } from '../utils/webhook-receiver';

jest.setTimeout(45_000);

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * A receiver that answers every request with `head` at once, then writes `piece` every 100 ms and
 * never ends the body; records each request's body.
 */
async function trickling(head: string, piece: string) {
  const bodies: { data: { contact: { id: string; n: number } } }[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(buffered.subarray(0, end).toString('latin1'))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        bodies.push(JSON.parse(buffered.subarray(end + 4, end + 4 + length).toString('utf8')) as (typeof bodies)[number]);
        buffered = buffered.subarray(end + 4 + length);
        socket.write(head);
        const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(piece)), 100);
        timers.add(timer);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies: () => bodies,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhook delivery', () => {
  let t: TestApp;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    t = await createTestApp({
      IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_RETRY_DELAYS: '0.2,0.2,0.2', WEBHOOK_POLL_MS: '50',
    });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t.close();
  });

  async function receiver(answer?: (hook: { headers: Record<string, unknown> }, index: number) => Answer) {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  }

  async function setup(url: string, types?: string[]) {
    const org = await Org.create(t);
    const key = await adminKey(org);
    const call = (method: 'get' | 'post' | 'patch', path: string, body?: unknown): Promise<Res> => {
      const req = t.http()[method](path).set('Authorization', `Bearer ${key}`);
      return body === undefined ? req : req.set('Content-Type', 'application/json').send(body as string | object);
    };
    const created = await call('post', '/api/v2/webhooks', { url, ...(types ? { types } : {}) });
    expect(created.status).toBe(201);
    const record = (events: Omit<NewEvent, 'organizationId'>[]) =>
      t.prisma.database.transaction((tx) => t.app.get(EventsRepository).record(tx, events.map((e) => ({ ...e, organizationId: org.id }) as NewEvent)));
    return { org, call, id: created.body.webhook.id as string, secret: created.body.secret as string, record };
  }

  const contactEvent = (contactId: string, n: number, type = 'contact.updated') =>
    ({ type, contactId, email: `c${contactId}@example.com`, data: { contact: { id: contactId, n } } }) as unknown as Omit<NewEvent, 'organizationId'>;

  it('delivers each committed event of the wanted types once, signed (standardwebhooks verifies), webhook-id = event id, and logs it', async () => {
    const r = await receiver();
    const { record, secret, call, id } = await setup(r.url, ['contact.created', 'list.created']);
    await record([contactEvent('a', 1, 'contact.created'), { type: 'list.created', data: { list: { id: 'l1', name: 'N', archived: false } } } as never]);
    await record([contactEvent('a', 2, 'contact.updated')]); // not a wanted type
    await waitUntil('two deliveries', () => r.received.length >= 2);
    const verifier = new Webhook(secret);
    const bodies = r.received.map((hook) => verifier.verify(hook.body, hook.headers as Record<string, string>) as { id: string; type: string });
    expect(bodies.map((b) => b.type)).toEqual(['contact.created', 'list.created']);
    for (const [i, hook] of r.received.entries()) {
      expect(hook.headers['webhook-id']).toBe(bodies[i].id);
      expect(bodies[i].id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(hook.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(Number(hook.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(JSON.parse(r.received[0].body)).toEqual({ id: bodies[0].id, type: 'contact.created', occurredAt: expect.any(String), requestId: null, data: { contact: { id: 'a', n: 1 } } });
    await waitUntil('the log says delivered', async () => (await call('get', `/api/v2/webhooks/${id}/deliveries`)).body.deliveries.every((d: { state: string }) => d.state === 'delivered'));
    const log = (await call('get', `/api/v2/webhooks/${id}/deliveries`)).body;
    expect(log.deliveries).toEqual([
      { eventId: bodies[1].id, type: 'list.created', state: 'delivered', attempts: [{ at: expect.any(String), status: 200, error: null }], nextAttemptAt: null },
      { eventId: bodies[0].id, type: 'contact.created', state: 'delivered', attempts: [{ at: expect.any(String), status: 200, error: null }], nextAttemptAt: null },
    ]);
    const page = (await call('get', `/api/v2/webhooks/${id}/deliveries?limit=1`)).body;
    expect(page.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([bodies[1].id]);
    const next = (await call('get', `/api/v2/webhooks/${id}/deliveries?limit=1&cursor=${page.nextCursor}`)).body;
    expect(next.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([bodies[0].id]);
    expect(next.nextCursor).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.received).toHaveLength(2); // once each
  });

  it('retries a failed attempt per the schedule until a 2xx, and marks the event failed after the last retry', async () => {
    const flaky = await receiver((_hook, i) => (i < 2 ? { status: 500 } : { status: 204 }));
    const a = await setup(flaky.url);
    await a.record([contactEvent('x', 1)]);
    await waitUntil('a success after two failures', () => flaky.received.length >= 3);
    const dead = await receiver(() => ({ status: 500 }));
    const b = await setup(dead.url);
    await b.record([contactEvent('y', 1)]);
    await waitUntil('failed after the last retry', async () => (await b.call('get', `/api/v2/webhooks/${b.id}/deliveries`)).body.deliveries[0]?.state === 'failed');
    const failed = (await b.call('get', `/api/v2/webhooks/${b.id}/deliveries`)).body.deliveries[0];
    expect(failed.attempts.map((x: { status: number }) => x.status)).toEqual([500, 500, 500, 500]); // first + 3 retries
    expect(failed.nextAttemptAt).toBeNull();
    expect(dead.received).toHaveLength(4);
    const ok = (await a.call('get', `/api/v2/webhooks/${a.id}/deliveries`)).body.deliveries[0];
    expect(ok).toMatchObject({ state: 'delivered', attempts: [{ status: 500 }, { status: 500 }, { status: 204 }] });
  });

  it('honours Retry-After on 503, and a 410 disables the webhook', async () => {
    const busy = await receiver((_hook, i) => (i === 0 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 }));
    const a = await setup(busy.url);
    await a.record([contactEvent('r', 1)]);
    await waitUntil('the retry', () => busy.received.length >= 2);
    expect(busy.received[1].at - busy.received[0].at).toBeGreaterThanOrEqual(1500); // not the 0.2 s of the schedule
    const gone = await receiver(() => ({ status: 410 }));
    const b = await setup(gone.url);
    await b.record([contactEvent('g', 1)]);
    await waitUntil('disabled', async () => (await b.call('get', `/api/v2/webhooks/${b.id}`)).body.webhook.enabled === false);
    await b.record([contactEvent('g', 2)]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(gone.received).toHaveLength(1);
  });

  it('after a 410 the instance sends that webhook nothing more, also events it took before the disable was written', async () => {
    // The 410's outcome (and with it the disable) is written later than the answer: here held back
    // 1.5 s by a lock on the delivery's row. Events committed meanwhile are taken by the fan-out
    // (the webhook is still enabled in the database) but must not be sent.
    const later: Promise<unknown>[] = [];
    const gone = await receiver((_hook, i) => {
      if (i === 0) {
        later.push(
          t.prisma.$transaction(async (tx) => {
            await tx.$executeRaw`SELECT 1 FROM webhook_deliveries WHERE webhook_id = ${hook.id} FOR UPDATE`;
            for (let n = 0; n < 3; n++) await hook.record([contactEvent(`h${n}`, 1)]);
            await new Promise((resolve) => setTimeout(resolve, 1500));
          }, { timeout: 10_000 }),
        );
      }
      return { status: 410 };
    });
    const hook = await setup(gone.url);
    await hook.record([contactEvent('g', 1)]);
    await waitUntil('disabled', async () => (await hook.call('get', `/api/v2/webhooks/${hook.id}`)).body.webhook.enabled === false);
    await Promise.all(later);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(gone.received.map((h) => (JSON.parse(h.body) as { data: { contact: { id: string } } }).data.contact.id)).toEqual(['g']);
  });

  it('24 hours without a success disables the webhook', async () => {
    const dead = await receiver(() => ({ status: 500 }));
    const a = await setup(dead.url);
    await t.prisma.$executeRaw`UPDATE webhooks SET failing_since = now() - interval '25 hours' WHERE id = ${a.id}`;
    await a.record([contactEvent('d', 1)]);
    await waitUntil('disabled', async () => (await a.call('get', `/api/v2/webhooks/${a.id}`)).body.webhook.enabled === false);
    expect(dead.received).toHaveLength(1);
  });

  it('per contact, a later event waits until the earlier is delivered; other contacts are not held up', async () => {
    let pFailures = 0;
    const r = await receiver((hook) => {
      const isP = (JSON.parse((hook as unknown as { body: string }).body) as { data: { contact: { id: string } } }).data.contact.id === 'p';
      return isP && pFailures++ < 2 ? { status: 500 } : { status: 200 };
    });
    const { record } = await setup(r.url);
    await record([contactEvent('p', 1), contactEvent('q', 1)]);
    await record([contactEvent('p', 2)]);
    await waitUntil('all three delivered', () => r.received.length >= 5);
    const order = r.events().map((e) => `${(e.data.contact as { id: string }).id}${(e.data.contact as { n: number }).n}`);
    expect(order.filter((x) => x.startsWith('p'))).toEqual(['p1', 'p1', 'p1', 'p2']);
    expect(order.indexOf('q1')).toBeLessThan(order.lastIndexOf('p1')); // q did not wait for p
  });

  it.each([
    ['trickles its body', 'HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n', 'x'],
    ['sends an endless chunked body', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n', '1\r\nx\r\n'],
    ['sends a body with no length and never closes', 'HTTP/1.1 200 OK\r\nconnection: keep-alive\r\n\r\n', 'x'],
  ])('a receiver that answers 200 at once and then %s: each event is delivered once and recorded delivered', async (_kind, head, piece) => {
    const r = await trickling(head, piece);
    try {
      const { record, call, id } = await setup(r.url);
      await record([contactEvent('k', 1), contactEvent('m', 1)]);
      await record([contactEvent('k', 2)]);
      // Well within the 10 s attempt timeout: the answer is its head; the body is not waited for.
      await waitUntil(
        'three recorded delivered',
        async () => (await call('get', `/api/v2/webhooks/${id}/deliveries`)).body.deliveries.filter((d: { state: string }) => d.state === 'delivered').length === 3,
        8000,
      );
      const log = (await call('get', `/api/v2/webhooks/${id}/deliveries`)).body.deliveries as { attempts: unknown[] }[];
      expect(log.map((d) => d.attempts)).toEqual(Array.from({ length: 3 }, () => [{ at: expect.any(String), status: 200, error: null }]));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(r.bodies().map((b) => `${b.data.contact.id}${b.data.contact.n}`).sort()).toEqual(['k1', 'k2', 'm1']);
    } finally {
      await r.close();
    }
  });

  it('DELETE removes the webhook and its deliveries log from the database', async () => {
    const r = await receiver();
    const { record, call, id, org } = await setup(r.url);
    await record([contactEvent('d', 1), contactEvent('e', 1)]);
    await waitUntil('two delivered', async () => (await call('get', `/api/v2/webhooks/${id}/deliveries`)).body.deliveries.filter((d: { state: string }) => d.state === 'delivered').length === 2);
    const deleted = await t.http().delete(`/api/v2/webhooks/${id}`).set('Authorization', `Bearer ${await adminKey(org)}`);
    expect(deleted.status).toBe(200);
    expect(await t.prisma.webhookDelivery.count({ where: { webhookId: id } })).toBe(0);
    expect(await t.prisma.webhook.count({ where: { id } })).toBe(0);
  });

  it('after rotate-secret, attempts verify with the new secret only', async () => {
    const r = await receiver();
    const { record, call, id, secret } = await setup(r.url);
    const rotated = (await call('post', `/api/v2/webhooks/${id}/rotate-secret`)).body.secret as string;
    await record([contactEvent('s', 1)]);
    await waitUntil('delivered', () => r.received.length >= 1);
    const hook = r.received[0];
    expect(() => new Webhook(rotated).verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>)).toThrow();
  });
});

describe('the fan-out takes fresh deliveries for their first attempt (worker off: the statement alone)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_DELIVERY: 'false' });
  });
  afterAll(() => t.close());

  /** A new organization with a webhook to a port nothing listens on (its statements run here, no attempt). */
  async function orgWithWebhook(): Promise<{ org: Org; key: string; webhookId: string }> {
    const org = await Org.create(t);
    const key = await adminKey(org);
    const created = await t.http().post('/api/v2/webhooks').set('Authorization', `Bearer ${key}`).send({ url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(201);
    return { org, key, webhookId: created.body.webhook.id as string };
  }

  it('takes at most the free slots, never a later event of a contact pending earlier (in the table, a lease record or the page); the rest wait', async () => {
    const { org, key, webhookId } = await orgWithWebhook();
    const repository = t.app.get(WebhooksRepository);
    const record = (events: [string, number][]) =>
      t.prisma.database.transaction((tx) =>
        t.app.get(EventsRepository).record(
          tx,
          events.map(([contactId, n]) => ({ organizationId: org.id, type: 'contact.updated', contactId, email: `c${contactId}@example.com`, data: { contact: { id: contactId, n } } }) as unknown as NewEvent),
        ),
      );
    const fanOut = async (limit: number) => {
      const { inserted, taken } = await repository.fanOut(1000, { owner: 'test', token: `t${limit}`, seconds: 30, limit });
      return { inserted, taken: taken.map((d) => { const c = (JSON.parse(d.event?.body ?? '{}') as { data: { contact: { id: string; n: number } } }).data.contact; return `${c.id}${c.n}`; }) };
    };
    await record([['r', 1], ['r', 2], ['s', 1], ['u', 1]]);
    // r2 waits for r1 (same page); of r1, s1, u1 two slots take the first two (in a lease record, no row); r2 and u1 are inserted for the claim.
    expect(await fanOut(2)).toEqual({ inserted: 2, taken: ['r1', 's1'] });
    // The deliveries log shows all four pending, newest first: the two under way (no row yet) with no attempt and their lease's end.
    const log = await t.http().get(`/api/v2/webhooks/${webhookId}/deliveries`).set('Authorization', `Bearer ${key}`);
    expect(log.status).toBe(200);
    expect(log.body.deliveries.map((d: { eventId: string; state: string; attempts: unknown[]; nextAttemptAt: string | null }) => [d.state, d.attempts.length, d.nextAttemptAt !== null])).toEqual(
      Array.from({ length: 4 }, () => ['pending', 0, true]),
    );
    expect(new Set(log.body.deliveries.map((d: { eventId: string }) => d.eventId)).size).toBe(4);
    await record([['r', 3], ['v', 1], ['s', 2]]);
    // r3 waits: r1 is under way (the lease record) and r2 pending in the table; s2 waits for s1 (the lease record).
    expect(await fanOut(10)).toEqual({ inserted: 2, taken: ['v1'] });
    // What was not taken is the claim's, in order: u1 now, r2 and s2 only after r1 and s1 are recorded.
    const claimed = await repository.claim('test', 'c', 30, 10);
    expect(claimed.map((d) => (JSON.parse(d.event?.body ?? '{}') as { data: { contact: { id: string } } }).data.contact.id)).toEqual(['u']);
  });

  it("a round that finds a commit of the organization in progress reads up to the horizon it had, without waiting; the organization's next commits do not queue behind it", async () => {
    const { org } = await orgWithWebhook();
    const repository = t.app.get(WebhooksRepository);
    const record = (contactId: string) =>
      t.prisma.database.transaction((tx) =>
        t.app.get(EventsRepository).record(tx, [{ organizationId: org.id, type: 'contact.created', contactId, email: `${contactId}@example.com`, data: { contact: { id: contactId } } } as unknown as NewEvent]),
      );
    const lease = (token: string) => ({ owner: 'test', token, seconds: 30, limit: 0 });
    const late = <T>(work: Promise<T>) => Promise.race([work, new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5000))]);
    await record('a');
    await record('b');
    const committing = new Client({ connectionString: t.database.url });
    await committing.connect();
    await committing.query('BEGIN');
    try {
      // The first round learns a horizon (after both commits) and reads a page of one.
      expect((await repository.fanOut(1, lease('h1'))).read).toBe(1);
      // A commit of the organization in progress: the shared lock events_take_commit_position holds until its commit ends.
      await committing.query('SELECT pg_advisory_xact_lock_shared(1163284052, hashtext($1))', [org.id]);
      const round = await late(repository.fanOut(1000, lease('h2')));
      expect(round === 'waited' ? round : round.read).toBe(1); // b, up to the horizon it had
      expect(await late(record('c'))).not.toBe('waited');
    } finally {
      await committing.query('ROLLBACK');
      await committing.end();
    }
    // Free again: the next round takes a new horizon and reads c.
    expect((await repository.fanOut(1000, lease('h3'))).read).toBe(1);
  });

  it('a delivery is named by its key, the primary key (webhook_id, position, seq): no surrogate id, four indexes in all, three of them partial (one written at its outcome)', async () => {
    const indexes = await t.prisma.$queryRawUnsafe<{ name: string; def: string }[]>(
      `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS def FROM pg_index WHERE indrelid = 'webhook_deliveries'::regclass ORDER BY 1`,
    );
    expect(indexes.map((i) => i.name)).toEqual([
      'webhook_deliveries_leased_next_attempt_at_idx',
      'webhook_deliveries_pending_contact_idx',
      'webhook_deliveries_pending_webhook_id_next_attempt_at_idx',
      'webhook_deliveries_pkey',
    ]);
    expect(indexes[3].def).toContain('(webhook_id, "position", seq)');
    const id = await t.prisma.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM information_schema.columns WHERE table_name = 'webhook_deliveries' AND column_name = 'id'`);
    expect(id).toEqual([]);
  });

  it('inserts without ON CONFLICT: a delivery already there for an event of its page fails the round (23505) and leaves the feed position; none is skipped', async () => {
    const org = await Org.create(t);
    const key = await adminKey(org);
    const created = await t.http().post('/api/v2/webhooks').set('Authorization', `Bearer ${key}`).send({ url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(201);
    const webhookId = created.body.webhook.id as string;
    const repository = t.app.get(WebhooksRepository);
    const record = (contactId: string) =>
      t.prisma.database.transaction((tx) =>
        t.app.get(EventsRepository).record(tx, [{ organizationId: org.id, type: 'contact.created', contactId, email: `${contactId}@example.com`, data: { contact: { id: contactId } } } as unknown as NewEvent]),
      );
    const lease = (token: string) => ({ owner: 'test', token, seconds: 30, limit: 0 });
    const feed = async () => (await t.prisma.webhook.findUniqueOrThrow({ where: { id: webhookId }, select: { feedPosition: true, feedSeq: true } }));
    await record('a');
    expect(await repository.fanOut(1000, lease('d1'))).toMatchObject({ read: 1, inserted: 1 });
    await record('b');
    const before = await feed();
    // What moving the feed position rules out (a bug would be needed): a delivery of b already there.
    await t.prisma.$executeRaw`
      INSERT INTO webhook_deliveries (webhook_id, event_seq, event_id, type, contact_id, position, seq)
      SELECT ${webhookId}, e.seq, e.id, e.type, e.contact_id, c.position, e.seq
      FROM events e JOIN event_commits c ON c.organization_id = e.organization_id AND c.xid = e.xid
      WHERE e.organization_id = ${org.id} AND e.contact_id = 'b'`;
    await expect(repository.fanOut(1000, lease('d2'))).rejects.toMatchObject({ code: '23505' });
    expect(await feed()).toEqual(before);
    await t.prisma.$executeRaw`DELETE FROM webhook_deliveries WHERE webhook_id = ${webhookId} AND contact_id = 'b'`;
    expect(await repository.fanOut(1000, lease('d3'))).toMatchObject({ read: 1, inserted: 1 });
  });
});

describe('the fan-out waits for attempt slots instead of leaving its page to the claim', () => {
  let t: TestApp;
  let r: Receiver;
  beforeAll(async () => {
    // 8 slots, a receiver answering after 20 ms; a poll interval long enough that the wait for slots never runs out here.
    t = await createTestApp({ IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_CONCURRENCY: '8', WEBHOOK_POLL_MS: '1500' });
    r = await startReceiver(() => ({ status: 204, delayMs: 20 }));
    // Counts the writes of each delivery after its insert (test only: dropped with the test database).
    await t.prisma.$executeRawUnsafe('CREATE TABLE test_delivery_updates (seq bigint NOT NULL)');
    await t.prisma.$executeRawUnsafe(`
      CREATE FUNCTION test_count_delivery_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_delivery_updates VALUES (NEW.seq); RETURN NULL; END $$`);
    await t.prisma.$executeRawUnsafe(
      'CREATE TRIGGER test_count_delivery_update AFTER UPDATE ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION test_count_delivery_update()',
    );
  });
  afterAll(async () => {
    await r.close();
    await t.close();
  });

  it('40 events of one commit with 8 slots: every delivery is written once, inserted with its outcome (no update); the lease records are gone', async () => {
    const org = await Org.create(t);
    const key = await adminKey(org);
    const created = await t.http().post('/api/v2/webhooks').set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json').send({ url: r.url });
    expect(created.status).toBe(201);
    const events = Array.from({ length: 40 }, (_, i) => ({ organizationId: org.id, type: 'contact.created', contactId: `k${i}`, email: `k${i}@example.com`, data: { contact: { id: `k${i}` } } }) as unknown as NewEvent);
    await t.prisma.database.transaction((tx) => t.app.get(EventsRepository).record(tx, events));
    await waitUntil('40 delivered and recorded', async () => {
      const rows = await t.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'delivered'`);
      return rows[0].n === 40;
    });
    expect(r.received).toHaveLength(40);
    // No update: each row is inserted once, with its outcome (a page left to the claim would be inserted pending and updated twice: lease, outcome).
    const writes = await t.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM test_delivery_updates');
    expect(writes[0]).toEqual({ n: 0 });
    const rows = await t.prisma.$queryRawUnsafe<{ n: number; once: number }[]>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE attempt_count = 1 AND jsonb_array_length(attempts) = 1 AND leased_by IS NOT NULL AND lease_token IS NULL)::int AS once FROM webhook_deliveries`,
    );
    expect(rows[0]).toEqual({ n: 40, once: 40 });
    await waitUntil('no lease record left', async () => (await t.prisma.webhookLease.count()) === 0);
  });
});

describe('webhook addresses with a hostile resolver (WEBHOOK_ALLOW_INSECURE unset)', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await createTestApp({ IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', WEBHOOK_RETRY_DELAYS: '30', WEBHOOK_POLL_MS: '50' });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('refuses a public name resolving to 127.0.0.1 on POST, and on the attempt when it rebinds after POST', async () => {
    const answers: Record<string, string> = { 'hooks.example.com': '127.0.0.1', 'rebind.example.com': '93.184.216.34' };
    t.app.get(WebhookAddressPolicy).useResolver((host) => Promise.resolve([{ address: answers[host] ?? '203.0.113.1', family: 4 as const }]));
    const org = await Org.create(t);
    const key = await adminKey(org);
    const post = (body: unknown) => t.http().post('/api/v2/webhooks').set('Authorization', `Bearer ${key}`).send(body as object);
    const refused = await post({ url: 'https://hooks.example.com/x' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({ code: 'INVALID_REQUEST', message: expect.stringMatching(/non-public/) });

    const created = await post({ url: `https://rebind.example.com:${receiver.port}/x` });
    expect(created.status).toBe(201);
    answers['rebind.example.com'] = '127.0.0.1'; // the name now points at the receiver on loopback
    await t.prisma.database.transaction((tx) =>
      t.app.get(EventsRepository).record(tx, [{ organizationId: org.id, type: 'list.created', data: { list: { id: 'l', name: 'L', archived: false } } }]),
    );
    const path = `/api/v2/webhooks/${created.body.webhook.id}/deliveries`;
    await waitUntil('an attempt', async () => (await t.http().get(path).set('Authorization', `Bearer ${key}`)).body.deliveries[0]?.attempts.length > 0);
    const delivery = (await t.http().get(path).set('Authorization', `Bearer ${key}`)).body.deliveries[0];
    expect(delivery).toMatchObject({ state: 'pending', attempts: [{ status: null, error: expect.stringMatching(/non-public/) }] });
    expect(receiver.received).toHaveLength(0);
  });
});

describe('a lost attempt is retried before a backlog of due deliveries (contract 14: "retried by another within a minute")', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No worker: the test takes the deliveries itself, as two instances would (one of them dies).
    t = await createTestApp({ IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_DELIVERY: 'false' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function backlogSetup() {
    const org = await Org.create(t);
    const key = await adminKey(org);
    const created = await t.http().post('/api/v2/webhooks').set('Authorization', `Bearer ${key}`).send({ url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(201);
    const webhookId = created.body.webhook.id as string;
    const event = (contactId: string) => ({ organizationId: org.id, type: 'contact.created', contactId, email: `${contactId}@example.com`, data: { contact: { id: contactId } } }) as unknown as NewEvent;
    const record = (contactIds: string[]) => t.prisma.database.transaction((tx) => t.app.get(EventsRepository).record(tx, contactIds.map(event)));
    const backlog = async () => {
      // 60 events due, each older (next_attempt_at) than the end of the lost lease.
      await record(Array.from({ length: 60 }, (_, i) => `b${i}`));
      expect(await repository().fanOut(1000, { owner: 'other', token: 'o1', seconds: 30, limit: 0 })).toMatchObject({ read: 60, inserted: 60 });
      await t.prisma.$executeRaw`UPDATE webhook_deliveries SET next_attempt_at = next_attempt_at - interval '1 minute' WHERE webhook_id = ${webhookId} AND state = 'pending'`;
    };
    const log = async () => {
      const answer = await t.http().get(`/api/v2/webhooks/${webhookId}/deliveries?limit=100`).set('Authorization', `Bearer ${key}`);
      expect(answer.status).toBe(200);
      return answer.body.deliveries as { state: string; attempts: { error: string | null }[] }[];
    };
    return { webhookId, record, backlog, log };
  }
  const repository = () => t.app.get(WebhooksRepository);
  const contactOf = (d: { event: { body: string } | null }) => (JSON.parse(d.event?.body ?? '{}') as { data: { contact: { id: string } } }).data.contact.id;
  const LOST = 'no answer recorded: the instance making the attempt stopped';
  /** The claim takes due deliveries of every webhook: what a test leaves due would be the next test's. */
  const drop = (id: string) => t.prisma.$transaction([t.prisma.webhook.delete({ where: { id } }), t.prisma.webhookDelivery.deleteMany({ where: { webhookId: id } })]);

  it("a first attempt's lease record whose instance died, with 60 deliveries due: taken over, the next claim takes it first, logging the lost attempt", async () => {
    const { webhookId, record, backlog, log } = await backlogSetup();
    await record(['lost']);
    // The dying instance takes the first event for its attempt (a lease record of 1 s) and never records it.
    const taken = await repository().fanOut(1000, { owner: 'dead', token: 'dead-lease', seconds: 1, limit: 1 });
    expect(taken.taken).toHaveLength(1);
    await backlog();
    await waitUntil('the lease ended', async () => (await t.prisma.$queryRaw<{ ended: boolean }[]>`SELECT now() > expires_at AS ended FROM webhook_leases WHERE token = 'dead-lease'`)[0].ended);
    // Another instance's claim loop: the take-over (at most once a second), then a claim with room for 10 attempts: the lost one is among them, not after the 60.
    expect(await repository().takeOver()).toEqual({ leases: 1, deliveries: 1 });
    const claimed = await repository().claim('alive', 'a1', 30, 10);
    expect(claimed).toHaveLength(10);
    const retried = claimed.filter((d) => contactOf(d) === 'lost');
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ attemptCount: 2, fresh: false });
    expect(await t.prisma.webhookLease.count({ where: { webhookId } })).toBe(0);
    const [lost] = await t.prisma.$queryRaw<{ attempts: { error: string | null }[]; leased_by: string; state: string }[]>`
      SELECT attempts, leased_by, state FROM webhook_deliveries WHERE webhook_id = ${webhookId} AND contact_id = 'lost'`;
    expect(lost).toMatchObject({ state: 'leased', leased_by: 'alive', attempts: [{ error: LOST }] });
    // The log shows it pending (an attempt under way), with the contract's states only.
    expect(new Set((await log()).map((d) => d.state))).toEqual(new Set(['pending']));
    await drop(webhookId);
  });

  it('a retry claimed by an instance that died, with 60 deliveries due: the next claim takes its ended lease first, logging the lost attempt', async () => {
    const { webhookId, record, backlog, log } = await backlogSetup();
    await record(['lost']);
    // Its first attempt is left to the claim (no slot at the fan-out), and the dying instance claims it for 1 s.
    expect(await repository().fanOut(1000, { owner: 'x', token: 'x1', seconds: 30, limit: 0 })).toMatchObject({ read: 1, inserted: 1 });
    const dying = await repository().claim('dead', 'dead-lease', 1, 1);
    expect(dying.map(contactOf)).toEqual(['lost']);
    await backlog();
    await waitUntil('the lease ended', async () => (await t.prisma.$queryRaw<{ ended: boolean }[]>`SELECT now() > next_attempt_at AS ended FROM webhook_deliveries WHERE lease_token = 'dead-lease'`)[0].ended);
    const claimed = await repository().claim('alive', 'a1', 30, 10);
    expect(claimed).toHaveLength(10);
    const retried = claimed.filter((d) => contactOf(d) === 'lost');
    expect(retried).toHaveLength(1);
    expect(retried[0].attemptCount).toBe(2);
    const [lost] = await t.prisma.$queryRaw<{ attempts: { error: string | null }[]; leased_by: string }[]>`
      SELECT attempts, leased_by FROM webhook_deliveries WHERE webhook_id = ${webhookId} AND contact_id = 'lost'`;
    expect(lost).toMatchObject({ leased_by: 'alive', attempts: [{ error: LOST }] });
    expect(new Set((await log()).map((d) => d.state))).toEqual(new Set(['pending']));
    await drop(webhookId);
  });

  it('a dead lease record with more events than the claim has slots: each gets its row, leased under the ended lease, and the claims take them first; none is lost', async () => {
    const { webhookId, record } = await backlogSetup();
    await record(['d1', 'd2', 'd3']);
    expect((await repository().fanOut(1000, { owner: 'dead', token: 'dead-3', seconds: 1, limit: 3 })).taken).toHaveLength(3);
    await waitUntil('the lease ended', async () => (await t.prisma.$queryRaw<{ ended: boolean }[]>`SELECT now() > expires_at AS ended FROM webhook_leases WHERE token = 'dead-3'`)[0].ended);
    expect(await repository().takeOver()).toEqual({ leases: 1, deliveries: 3 });
    expect(await t.prisma.webhookLease.count({ where: { webhookId } })).toBe(0);
    const first = await repository().claim('alive', 'a1', 30, 1);
    expect(first.map((d) => d.attemptCount)).toEqual([2]);
    const rows = await t.prisma.$queryRaw<{ contact_id: string; state: string; lease_token: string }[]>`
      SELECT contact_id, state, lease_token FROM webhook_deliveries WHERE webhook_id = ${webhookId} ORDER BY lease_token, contact_id`;
    expect(rows.map((r) => [r.state, r.lease_token])).toEqual([['leased', 'a1'], ['leased', 'dead-3'], ['leased', 'dead-3']]);
    const next = await repository().claim('alive', 'a2', 30, 10);
    expect([...first, ...next].map((d) => [contactOf(d), d.attemptCount]).sort()).toEqual([['d1', 2], ['d2', 2], ['d3', 2]]);
    const logged = await t.prisma.$queryRaw<{ attempts: { error: string | null }[] }[]>`SELECT attempts FROM webhook_deliveries WHERE webhook_id = ${webhookId} ORDER BY seq`;
    expect(logged.map((r) => r.attempts)).toEqual(Array.from({ length: 3 }, () => [{ at: expect.any(String), status: null, error: LOST }]));
    await drop(webhookId);
  });

  it('an outcome whose lease record is gone (webhook deleted, or taken over) writes nothing; the webhook DELETE removes its lease records', async () => {
    const { webhookId, record } = await backlogSetup();
    await record(['g1']);
    const { taken } = await repository().fanOut(1000, { owner: 'me', token: 'gone', seconds: 30, limit: 1 });
    expect(taken).toHaveLength(1);
    await drop(webhookId);
    expect(await t.prisma.webhookLease.count({ where: { token: 'gone' } })).toBe(0);
    const [d] = taken;
    const recorded = await repository().complete([
      { webhookId: d.webhookId, position: d.position, seq: d.seq, leaseToken: d.leaseToken, fresh: true, state: 'delivered', delayMs: 0, at: new Date().toISOString(), status: 200, error: null },
    ]);
    expect(recorded).toBe(0);
    expect(await t.prisma.webhookDelivery.count({ where: { webhookId } })).toBe(0);
  });

  it('a webhook DELETE that waits for an outcome holding its lease record also deletes the delivery rows that outcome wrote', async () => {
    const { webhookId, record } = await backlogSetup();
    await record(['r1', 'r2']);
    const { taken } = await repository().fanOut(1000, { owner: 'me', token: 'racing', seconds: 30, limit: 2 });
    expect(taken).toHaveLength(2);
    const at = new Date().toISOString();
    let deleted: Promise<number> | undefined;
    await t.prisma.database.transaction(async (tx) => {
      // The outcome's statement, in a transaction left open: its rows are written and its lease record locked.
      const [row] = await runIn(tx, WEBHOOK_COMPLETE, [
        taken.map((d) => d.webhookId), taken.map((d) => d.position), taken.map((d) => d.seq), taken.map((d) => d.leaseToken),
        taken.map(() => 'delivered'), taken.map(() => 0), taken.map(() => at), taken.map(() => 200), taken.map(() => null), taken.map(() => true),
      ]);
      expect(row.recorded).toBe(2);
      // Started now (a Prisma query runs when its promise is awaited or then'd).
      deleted = t.prisma.$executeRaw`DELETE FROM webhooks WHERE id = ${webhookId}`.then((n) => n);
      await waitUntil('the DELETE waits for the lease record', async () =>
        (await t.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM webhooks%'`)[0].n === 1);
    });
    expect(await deleted).toBe(1);
    expect(await t.prisma.webhookDelivery.count({ where: { webhookId } })).toBe(0);
  });
});
