import { createApiKey, createOrganization } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';
import { portOf, refusals, sendHeadersOnly, sleep } from './support';

/** Per-organization limit with the in-process store (no REDIS_URL). */
describe('per-organization rate limit (in-process store)', () => {
  const app = useTestApp({ ORG_RATE_LIMIT: '3', RATE_WINDOW_SECONDS: '3' });
  const lists = (key: string) => app.t.http().get('/api/v2/lists').set('Authorization', `Bearer ${key}`);

  it('accepts ORG_RATE_LIMIT requests, refuses the next with 429 RATE_LIMIT_EXCEEDED and the headers', async () => {
    const org = await createOrganization(app.t.prisma);
    const first = await lists(org.apiKey).expect(200);
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2', // counts the current request
      'x-ratelimit-reset': '0', // room now
      'ratelimit-policy': '"org";q=3;w=3',
      ratelimit: '"org";r=2;t=0',
    });
    await lists(org.apiKey).expect(200);
    const last = await lists(org.apiKey).expect(200);
    expect(last.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3', ratelimit: '"org";r=0;t=3' });

    const refused = await lists(org.apiKey).expect(429);
    expect(refused.body).toEqual({
      request_id: refused.headers['x-request-id'],
      error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) },
    });
    expect(refused.headers).toMatchObject({
      'retry-after': '3',
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '3',
      ratelimit: '"org";r=0;t=3',
    });
  });

  it('gives Retry-After to the second: refused just before it, accepted once it has passed', async () => {
    const org = await createOrganization(app.t.prisma);
    for (let i = 0; i < 3; i++) await lists(org.apiKey).expect(200);
    await sleep(1100);
    const sentAt = Date.now();
    const refused = await lists(org.apiKey).expect(429);
    const answeredAt = Date.now();
    // ~1.9 s until the first request leaves the 3 s window: rounded up, 2.
    expect(refused.headers['retry-after']).toBe('2');
    const retryAfterMs = Number(refused.headers['retry-after']) * 1000;

    await sleep(sentAt + retryAfterMs - 1000 - 150 - Date.now()); // a second early: still no room
    await lists(org.apiKey).expect(429);
    await sleep(answeredAt + retryAfterMs + 20 - Date.now());
    await lists(org.apiKey).expect(200);
  });

  it('does not count refused requests', async () => {
    const org = await createOrganization(app.t.prisma);
    for (let i = 0; i < 3; i++) await lists(org.apiKey).expect(200);
    for (let i = 0; i < 5; i++) await lists(org.apiKey).expect(429);
    await sleep(3050);
    // Had the refusals counted, the window would still be full.
    for (let i = 0; i < 3; i++) await lists(org.apiKey).expect(200);
    await lists(org.apiKey).expect(429);
  });

  it('shares one budget between all keys of an organization; another organization is unaffected', async () => {
    const org = await createOrganization(app.t.prisma);
    const second = await createApiKey(app.t.prisma, org.id);
    const other = await createOrganization(app.t.prisma);
    await lists(org.apiKey).expect(200);
    await app.t.http().get('/api/v2/lists').set('X-API-Key', second.key).expect(200);
    await lists(org.apiKey).expect(200);
    await app.t.http().get('/api/v2/lists').set('X-API-Key', second.key).expect(429);
    const theirs = await lists(other.apiKey).expect(200);
    expect(theirs.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('counts every authenticated request whatever its outcome, and puts the headers on errors', async () => {
    const org = await createOrganization(app.t.prisma);
    const notFound = await app.t
      .http()
      .get('/api/v2/contacts/nobody@example.com')
      .set('Authorization', `Bearer ${org.apiKey}`)
      .expect(404);
    expect(notFound.body.error.code).toBe('CONTACT_NOT_FOUND');
    expect(notFound.headers['x-ratelimit-remaining']).toBe('2');
    const malformed = await app.t
      .http()
      .post('/api/v2/contacts')
      .set('Authorization', `Bearer ${org.apiKey}`)
      .set('Content-Type', 'application/json')
      .send('{not json')
      .expect(400);
    expect(malformed.headers).toMatchObject({ 'x-ratelimit-remaining': '1', 'ratelimit-policy': '"org";q=3;w=3' });
    await lists(org.apiKey).expect(200);
    await lists(org.apiKey).expect(429);
  });

  it('puts no rate-limit headers on unauthenticated answers and does not count them', async () => {
    const org = await createOrganization(app.t.prisma);
    const res = await app.t.http().get('/api/v2/lists').set('Authorization', 'Bearer nope').expect(401);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.headers['ratelimit']).toBeUndefined();
    expect((await lists(org.apiKey).expect(200)).headers['x-ratelimit-remaining']).toBe('2');
  });

  it('does not count public routes (health, metrics) per organization', async () => {
    const org = await createOrganization(app.t.prisma);
    for (let i = 0; i < 5; i++) {
      const res = await app.t.http().get('/health/live').set('Authorization', `Bearer ${org.apiKey}`).expect(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
    expect((await lists(org.apiKey).expect(200)).headers['x-ratelimit-remaining']).toBe('2');
  });

  it('counts refusals in rate_limit_refusals_total{scope="org"}', async () => {
    const org = await createOrganization(app.t.prisma);
    for (let i = 0; i < 3; i++) await lists(org.apiKey).expect(200);
    const before = await refusals(app.t, 'org');
    await lists(org.apiKey).expect(429);
    await lists(org.apiKey).expect(429);
    expect(await refusals(app.t, 'org')).toBe(before + 2);
  });

  it('refuses a throttled request without reading its body', async () => {
    const org = await createOrganization(app.t.prisma);
    for (let i = 0; i < 3; i++) await lists(org.apiKey).expect(200);
    // 5 MB announced, nothing sent: an answer at all proves the body was not awaited.
    const res = await sendHeadersOnly(portOf(app.t), '/api/v2/contacts', {
      Authorization: `Bearer ${org.apiKey}`,
      'Content-Type': 'application/json',
      'Content-Length': String(5_000_000),
    });
    expect(res.status).toBe(429);
    expect(JSON.parse(res.body).error.code).toBe('RATE_LIMIT_EXCEEDED');
  });
});
