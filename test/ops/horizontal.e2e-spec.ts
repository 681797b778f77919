import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { drainHttpServer } from '../../src/http-body/graceful-shutdown';
import { createList, createOrganization } from '../utils/fixtures';
import { createTestApp, ROOM_FOR_LOAD, type TestApp } from '../utils/test-app';
import { REDIS_URL, describeIf } from '../rate-limit/support';

/**
 * Horizontal scaling (issue 7): three instances on one PostgreSQL and one Redis under concurrent
 * load of overlapping emails. No duplicate contact; the organization limit is exact across the
 * three; an instance drained mid-load (the SIGTERM path: drainHttpServer, then close) loses no
 * acknowledged write. Nothing here bounds a duration: the file runs beside others.
 */
jest.setTimeout(120_000);

const ORG_RATE_LIMIT = 50;

interface Answer {
  status: number;
  body: { status?: string; results?: Array<{ email: string | null; status: string; id?: string }>; email?: string; id?: string };
}

/** One POST over a keep-alive agent; rejects on a connection error (the request was not acknowledged). */
function post(agent: http.Agent, port: number, path: string, key: string, payload: unknown): Promise<Answer> {
  const body = JSON.stringify(payload);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const portOf = (t: TestApp) => (t.app.getHttpServer().address() as AddressInfo).port;

describeIf(!!REDIS_URL, 'REDIS_URL is not set: the three-instance tests did not run')('three instances, one PostgreSQL, one Redis', () => {
  const prefix = `contact-sync-test:horizontal:${randomBytes(6).toString('hex')}:`;
  let instances: TestApp[];
  let redis: Redis;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

  beforeAll(async () => {
    // ROOM_FOR_LOAD: concurrent writes of the same emails wait on each other's locks, which must not
    // end in a time-out's 503 on a loaded machine.
    const env = {
      ...ROOM_FOR_LOAD,
      REDIS_URL: REDIS_URL!,
      REDIS_KEY_PREFIX: prefix,
      // Far beyond any Redis answer, so that a loaded machine never falls back to the per-instance
      // store (the limit would then be per instance); the window is the default minute.
      REDIS_TIMEOUT_MS: '30000',
      ORG_RATE_LIMIT: String(ORG_RATE_LIMIT),
    };
    const first = await createTestApp(env);
    instances = [first, await createTestApp(env, { database: first.database }), await createTestApp(env, { database: first.database })];
    redis = new Redis(REDIS_URL!);
  });
  afterAll(async () => {
    agent.destroy();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    // The first owns the database: close it last.
    for (const t of [...instances].reverse()) if (t.app.getHttpServer().listening) await t.close();
  });

  it('overlapping emails from three instances: no duplicate contact, one "created" per email, exactly ORG_RATE_LIMIT accepted', async () => {
    const [a] = instances;
    const org = await createOrganization(a.prisma, 'Horizontal org');
    const listId = (await createList(a.prisma, org.id)).id;
    const emails = Array.from({ length: 8 }, (_, i) => `shared${i}@example.com`);
    const ports = instances.map(portOf);

    // 80 requests (50 may pass): singles and batches of distinct emails, all drawn from 8 emails.
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, i) => {
        const port = ports[i % 3];
        const overwrite = i % 4 === 0;
        if (i % 2 === 0) {
          return post(agent, port, '/api/v2/contacts', org.apiKey, { email: emails[i % 8], listIds: [listId], fields: { firstName: `n${i}` }, overwrite });
        }
        const contacts = [0, 3, 5].map((k) => ({ email: emails[(i + k) % 8], listIds: [listId], overwrite }));
        return post(agent, port, '/api/v2/contacts/batch', org.apiKey, { contacts });
      }),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s !== 429)).toHaveLength(ORG_RATE_LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(80 - ORG_RATE_LIMIT);

    const created = new Map<string, number>();
    for (const answer of answers) {
      const rows = answer.body.results ?? (answer.status === 429 ? [] : [answer.body as { email: string; status: string }]);
      for (const row of rows) if (row.status === 'created') created.set(String(row.email), (created.get(String(row.email)) ?? 0) + 1);
    }
    const duplicates = await a.prisma.$queryRawUnsafe<Array<{ email: string; n: number }>>(
      'SELECT email, count(*)::int AS n FROM contacts WHERE organization_id = $1 GROUP BY email HAVING count(*) > 1',
      org.id,
    );
    expect(duplicates).toEqual([]);
    const stored = await a.prisma.contact.findMany({ where: { organizationId: org.id }, select: { email: true } });
    // Every stored contact was answered "created" exactly once, and nothing else was.
    expect(Object.fromEntries(created)).toEqual(Object.fromEntries(stored.map((c) => [c.email, 1])));
    expect(await redis.zcard(`${prefix}org:${org.id}`)).toBe(ORG_RATE_LIMIT);
  });

  it('rolling deploy: one instance drained mid-load loses no acknowledged write', async () => {
    const [a, b, c] = instances;
    // Two organizations, so the load stays under each one's limit.
    const orgs = [await createOrganization(a.prisma, 'Rolling 1'), await createOrganization(a.prisma, 'Rolling 2')];
    const lists = [(await createList(a.prisma, orgs[0].id)).id, (await createList(a.prisma, orgs[1].id)).id];
    const ports = [portOf(a), portOf(b), portOf(c)];
    const acknowledged: Array<{ org: number; email: string }> = [];
    let refusedByDrainingInstance = 0;
    let retries = 0;

    // Like a load balancer: a request whose connection fails (not acknowledged) is retried on another instance.
    const send = async (i: number): Promise<void> => {
      const org = i % 2;
      const emails = [`roll${i}a@example.com`, `roll${i}b@example.com`, `roll${(i + 1) % 40}a@example.com`];
      const payload = { contacts: emails.map((email) => ({ email, listIds: [lists[org]], overwrite: true })) };
      let attempt = 0;
      for (;;) {
        const port = ports[(i + attempt) % 3];
        try {
          const answer = await post(agent, port, '/api/v2/contacts/batch', orgs[org].apiKey, payload);
          expect(answer.status).toBeLessThan(500);
          if (answer.status === 200) {
            for (const row of answer.body.results ?? []) if (row.status !== 'failed') acknowledged.push({ org, email: String(row.email) });
          }
          return;
        } catch {
          if (port === ports[2]) refusedByDrainingInstance += 1;
          retries += 1;
          attempt += 1;
          if (attempt > 5) throw new Error(`request ${i} failed on every instance`);
        }
      }
    };

    const load: Array<Promise<void>> = [];
    for (let i = 0; i < 80; i++) {
      load.push(send(i));
      if (i === 30) {
        // Mid-load: the SIGTERM path of main.ts (drain, then close the app) on the third instance.
        load.push(drainHttpServer(c.app.getHttpServer()).then(() => c.close()));
      }
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 20)); // spread the load over time
    }
    await Promise.all(load);
    expect(c.app.getHttpServer().listening).toBe(false);

    expect(acknowledged.length).toBeGreaterThan(0);
    const stored = await a.prisma.contact.findMany({
      where: { organizationId: { in: orgs.map((o) => o.id) } },
      select: { email: true, organizationId: true },
    });
    const present = new Set(stored.map((s) => `${s.organizationId}/${s.email}`));
    const lost = acknowledged.filter((w) => !present.has(`${orgs[w.org].id}/${w.email}`));
    expect(lost).toEqual([]);
    process.stdout.write(
      `[horizontal] rolling deploy: ${acknowledged.length} acknowledged contact writes, lost 0; ` +
        `${retries} connection-level retries (${refusedByDrainingInstance} at the drained instance)\n`,
    );
  });
});
