import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { createApiKey, createOrganization } from '../utils/fixtures';
import { createTestApp, type TestApp } from '../utils/test-app';
import { REDIS_URL, describeIf } from './support';

/** Two instances sharing one Redis (REDIS_URL; CI: redis://127.0.0.1:6379) and one database. */
describeIf(!!REDIS_URL, 'REDIS_URL is not set: the shared Redis rate-limit tests did not run')('per-organization rate limit shared through Redis', () => {
  const prefix = `contact-sync-test:${randomBytes(6).toString('hex')}:`; // this run's keys only
  let a: TestApp;
  let b: TestApp;
  let redis: Redis;
  beforeAll(async () => {
    // A generous timeout: this file is about atomic sharing, and a busy CI machine must not trigger the fallback.
    const env = { REDIS_URL: REDIS_URL!, REDIS_KEY_PREFIX: prefix, REDIS_TIMEOUT_MS: '5000', ORG_RATE_LIMIT: '20', RATE_WINDOW_SECONDS: '3' };
    a = await createTestApp(env);
    b = await createTestApp(env, { database: a.database });
    redis = new Redis(REDIS_URL!);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await b.close();
    await a.close();
  });
  const get = (t: TestApp, key: string) => t.http().get('/api/v2/lists').set('Authorization', `Bearer ${key}`);

  it('accepts exactly ORG_RATE_LIMIT concurrent requests between two instances and refuses the rest', async () => {
    const org = await createOrganization(a.prisma);
    const other = await createOrganization(a.prisma);
    const responses = await Promise.all(Array.from({ length: 32 }, (_, i) => get(i % 2 ? a : b, org.apiKey)));

    // Statuses, not responses, in the matchers: a failure must not pretty-print 32 sockets.
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12);
    const accepted = responses.filter((r) => r.status === 200);
    // Each accepted request saw a distinct count: the decisions were atomic.
    const remaining = accepted.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Refused requests were not logged.
    expect(await redis.zcard(`${prefix}org:${org.id}`)).toBe(20);

    await get(a, org.apiKey).expect(429);
    await get(b, org.apiKey).expect(429);
    const theirs = await get(b, other.apiKey).expect(200);
    expect(theirs.headers['x-ratelimit-remaining']).toBe('19');
  });

  it('shares the budget between the keys of an organization across instances, with Retry-After from Redis time', async () => {
    const org = await createOrganization(a.prisma);
    const second = await createApiKey(a.prisma, org.id);
    await Promise.all(Array.from({ length: 10 }, () => get(a, org.apiKey).expect(200)));
    await Promise.all(Array.from({ length: 10 }, () => get(b, second.key).expect(200)));
    const refused = await get(a, second.key).expect(429);
    expect(refused.headers['retry-after']).toBe('3');
    expect(refused.headers['x-ratelimit-reset']).toBe('3');
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  });
});
