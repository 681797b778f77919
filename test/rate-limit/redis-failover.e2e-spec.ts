import Redis from 'ioredis';
import { createOrganization } from '../utils/fixtures';
import { createTestApp, type TestApp } from '../utils/test-app';
import { RateLimitStores } from '../../src/rate-limit/rate-limit.module';
import { FailoverRateLimitStore } from '../../src/rate-limit/failover.store';
import { OwnRedis, describeIf, freePort, sleep } from './support';

/**
 * Redis faults, on a redis-server this file starts and kills on a port of its own (never the
 * shared CI Redis): no 500, no lost request, and back to Redis after recovery.
 */
describeIf(OwnRedis.available(), '/usr/bin/redis-server is absent: the Redis fault tests did not run')('rate limits when Redis fails', () => {
  let redis: OwnRedis;
  let t: TestApp;
  let client: Redis;
  beforeAll(async () => {
    redis = new OwnRedis(await freePort());
    await redis.start();
    t = await createTestApp({ REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '200', ORG_RATE_LIMIT: '1000', RATE_WINDOW_SECONDS: '60' });
    client = new Redis(redis.url, { maxRetriesPerRequest: null, retryStrategy: () => 50, lazyConnect: true });
    client.on('error', () => undefined);
    await client.connect();
  });
  afterAll(async () => {
    redis.resume();
    client?.disconnect();
    await t?.close();
    await redis?.kill();
  });
  const get = (key: string) => t.http().get('/api/v2/lists').set('Authorization', `Bearer ${key}`);
  const failover = () => t.app.get(RateLimitStores).store as FailoverRateLimitStore;

  it('keeps serving from the in-process store when Redis dies, and goes back to Redis when it returns', async () => {
    const org = await createOrganization(t.prisma);
    const key = `contact-sync:rate-limit:org:${org.id}`;
    for (let i = 0; i < 3; i++) await get(org.apiKey).expect(200);
    expect(await client.zcard(key)).toBe(3); // counted in Redis

    await redis.kill();
    const during = await Promise.all(Array.from({ length: 20 }, () => get(org.apiKey)));
    // Every request answered, none with a 500; the in-process store kept counting (it knew the 3).
    expect(during.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(during.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((x, y) => y - x)[0]).toBe(1000 - 4);
    expect(failover().usingFallback).toBe(true);

    await redis.start(); // empty: no persistence
    let backOnRedis = false;
    for (let i = 0; i < 60 && !backOnRedis; i++) {
      await get(org.apiKey).expect(200);
      backOnRedis = (await client.zcard(key).catch(() => 0)) > 0;
      if (!backOnRedis) await sleep(100);
    }
    expect(backOnRedis).toBe(true);
    expect(failover().usingFallback).toBe(false);
    const before = await client.zcard(key);
    for (let i = 0; i < 3; i++) await get(org.apiKey).expect(200);
    expect(await client.zcard(key)).toBe(before + 3);
  });

  it('answers within the Redis timeout when Redis hangs', async () => {
    const org = await createOrganization(t.prisma);
    await sleep(1100); // past the failover store's retry interval, so the next request asks Redis
    redis.pause();
    try {
      const started = Date.now();
      const res = await get(org.apiKey).expect(200);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(res.headers['x-ratelimit-remaining']).toBe('999');
      expect(failover().usingFallback).toBe(true);
    } finally {
      redis.resume();
    }
  });
});

describe('rate limits when Redis is down at start', () => {
  it('starts and serves with the in-process store', async () => {
    const port = await freePort(); // nothing listens there
    const t = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, ORG_RATE_LIMIT: '2' });
    try {
      const org = await createOrganization(t.prisma);
      const get = () => t.http().get('/api/v2/lists').set('Authorization', `Bearer ${org.apiKey}`);
      await get().expect(200);
      await get().expect(200);
      await get().expect(429);
    } finally {
      await t.close();
    }
  });
});
