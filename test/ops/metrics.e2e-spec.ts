import { createList, createOrganization } from '../utils/fixtures';
import { createTestApp, type TestApp } from '../utils/test-app';
import { useBuiltService } from '../utils/run-service';
import { parseSamples, scrape, valueOf } from './prometheus';

describe('GET /metrics', () => {
  let t: TestApp;
  let org: { id: string; apiKey: string };
  let listId: string;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t.prisma);
    listId = (await createList(t.prisma, org.id)).id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const auth = () => ({ Authorization: `Bearer ${org.apiKey}` });
  const requests = (method: string, route: string, status: number) => ({ method, route, status: String(status) });

  it('answers without an API key in the Prometheus text format, with the contract’s metric names', async () => {
    const res = await t.http().get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['x-request-id']).toBeDefined();
    expect(res.text).toContain('# TYPE http_requests_total counter');
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(res.text).toContain('# TYPE contacts_processed_total counter');
    expect(res.text).toContain('# TYPE rate_limit_refusals_total counter');
  });

  it('counts a request by method, route pattern and status, with its latency in the histogram', async () => {
    const labels = requests('GET', '/api/v2/lists', 200);
    const before = await scrape(t);
    await t.http().get('/api/v2/lists').set(auth()).expect(200);
    await t.http().get('/api/v2/lists').set(auth()).expect(200);
    const after = await scrape(t);

    expect(valueOf(after, 'http_requests_total', labels) - valueOf(before, 'http_requests_total', labels)).toBe(2);
    expect(valueOf(after, 'http_request_duration_seconds_count', labels) - valueOf(before, 'http_request_duration_seconds_count', labels)).toBe(2);
    expect(valueOf(after, 'http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(
      valueOf(after, 'http_request_duration_seconds_count', labels),
    );
    expect(valueOf(after, 'http_request_duration_seconds_sum', labels)).toBeGreaterThan(valueOf(before, 'http_request_duration_seconds_sum', labels));
  });

  it('counts a 401 from the API-key guard under the route it was refused on', async () => {
    const labels = requests('GET', '/api/v2/lists', 401);
    const before = valueOf(await scrape(t), 'http_requests_total', labels);
    await t.http().get('/api/v2/lists').expect(401);
    expect(valueOf(await scrape(t), 'http_requests_total', labels)).toBe(before + 1);
  });

  it('counts unknown routes (and known paths with another method) as "unmatched", never by their path', async () => {
    const before = await scrape(t);
    await t.http().get('/no/such/route/ada@example.com').expect(404);
    await t.http().get(`/api/v2/no-such-${Date.now()}`).set(auth()).expect(404);
    await t.http().delete('/api/v2/lists').set(auth()).expect(404);
    const after = await scrape(t);

    const getUnmatched = requests('GET', 'unmatched', 404);
    expect(valueOf(after, 'http_requests_total', getUnmatched) - valueOf(before, 'http_requests_total', getUnmatched)).toBe(2);
    const deleteUnmatched = requests('DELETE', 'unmatched', 404);
    expect(valueOf(after, 'http_requests_total', deleteUnmatched) - valueOf(before, 'http_requests_total', deleteUnmatched)).toBe(1);
    expect(after.some((s) => s.labels.route?.includes('no-such') || s.labels.route?.includes('/no/such'))).toBe(false);
  });

  it('labels GET /api/v2/contacts/{email} with the pattern, and no label anywhere holds an email', async () => {
    const email = `metrics.${Date.now()}@example.com`;
    await t.http().post('/api/v2/contacts').set(auth()).send({ email, listIds: [listId] }).expect(201);
    await t.http().get(`/api/v2/contacts/${encodeURIComponent(email)}`).set(auth()).expect(200);
    await t.http().get('/api/v2/contacts/nobody%40example.com').set(auth()).expect(404);
    const after = await scrape(t);

    expect(valueOf(after, 'http_requests_total', requests('GET', '/api/v2/contacts/:email', 200))).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, 'http_requests_total', requests('GET', '/api/v2/contacts/:email', 404))).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, 'http_requests_total', requests('POST', '/api/v2/contacts', 201))).toBeGreaterThanOrEqual(1);
    const labelValues = after.flatMap((s) => Object.values(s.labels));
    expect(labelValues.filter((v) => v.includes('@'))).toEqual([]);
  });

  it('counts contacts processed by outcome, with the code of failures only', async () => {
    const created = { outcome: 'created', code: '' };
    const updated = { outcome: 'updated', code: '' };
    const unchanged = { outcome: 'unchanged', code: '' };
    const invalidEmail = { outcome: 'failed', code: 'INVALID_EMAIL' };
    const duplicate = { outcome: 'failed', code: 'DUPLICATE_EMAIL' };
    const email = `processed.${Date.now()}@example.com`;
    const before = await scrape(t);

    await t.http().post('/api/v2/contacts').set(auth()).send({ email, listIds: [listId] }).expect(201);
    await t.http().post('/api/v2/contacts').set(auth()).send({ email, listIds: [listId] }).expect(409);
    await t.http().post('/api/v2/contacts').set(auth()).send({ email, listIds: [listId], fields: { city: 'Oslo' }, overwrite: true }).expect(200);
    await t.http().post('/api/v2/contacts').set(auth()).send({ email, listIds: [listId], overwrite: true }).expect(200);
    await t.http().post('/api/v2/contacts').set(auth()).send({ email: 'not-an-email', listIds: [listId] }).expect(400);
    const after = await scrape(t);

    const delta = (labels: Record<string, string>) =>
      valueOf(after, 'contacts_processed_total', labels) - valueOf(before, 'contacts_processed_total', labels);
    expect([delta(created), delta(updated), delta(unchanged), delta(invalidEmail), delta(duplicate)]).toEqual([1, 1, 1, 1, 1]);
    expect(after.filter((s) => s.name === 'contacts_processed_total' && s.labels.outcome !== 'failed' && s.labels.code !== '')).toEqual([]);
  });

  it('counts batch rows one by one', async () => {
    const created = { outcome: 'created', code: '' };
    const invalidList = { outcome: 'failed', code: 'INVALID_LIST' };
    const before = await scrape(t);
    const rows = [
      { email: `b1.${Date.now()}@example.com`, listIds: [listId] },
      { email: `b2.${Date.now()}@example.com`, listIds: [listId] },
      { email: `b3.${Date.now()}@example.com`, listIds: ['no-such-list'] },
    ];
    await t.http().post('/api/v2/contacts/batch').set(auth()).send({ contacts: rows }).expect(200);
    const after = await scrape(t);
    expect(valueOf(after, 'contacts_processed_total', created) - valueOf(before, 'contacts_processed_total', created)).toBe(2);
    expect(valueOf(after, 'contacts_processed_total', invalidList) - valueOf(before, 'contacts_processed_total', invalidList)).toBe(1);
  });
});

describe('metrics of refusals and failures', () => {
  let t: TestApp;
  afterEach(async () => {
    await t?.close();
  });

  it('counts a per-IP 429 answered by middleware under the route it targeted, and in rate_limit_refusals_total{scope="ip"}', async () => {
    t = await createTestApp({ IP_RATE_LIMIT: '2' });
    await t.http().get('/api/v2/lists').expect(401);
    await t.http().get('/api/v2/lists').expect(401);
    await t.http().get('/api/v2/lists').expect(429);
    await t.http().get('/no/such/route').expect(429);

    const after = await scrape(t); // /metrics is exempt from the per-IP limit
    expect(valueOf(after, 'http_requests_total', { method: 'GET', route: '/api/v2/lists', status: '429' })).toBe(1);
    expect(valueOf(after, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '429' })).toBe(1);
    expect(valueOf(after, 'rate_limit_refusals_total', { scope: 'ip' })).toBe(2);
  });

  it('counts an organization 429 in rate_limit_refusals_total{scope="org"}', async () => {
    t = await createTestApp({ ORG_RATE_LIMIT: '1' });
    const org = await createOrganization(t.prisma);
    await t.http().get('/api/v2/lists').set('X-API-Key', org.apiKey).expect(200);
    await t.http().get('/api/v2/lists').set('X-API-Key', org.apiKey).expect(429);

    const after = await scrape(t);
    expect(valueOf(after, 'rate_limit_refusals_total', { scope: 'org' })).toBe(1);
    expect(valueOf(after, 'http_requests_total', { method: 'GET', route: '/api/v2/lists', status: '429' })).toBe(1);
  });

  // docs/api.md#request-level-errors: a database that cannot serve is 503 SERVICE_UNAVAILABLE (it was 500 before).
  it('counts a 503 (database gone) under its route', async () => {
    t = await createTestApp();
    const org = await createOrganization(t.prisma);
    await t.database.drop(); // WITH (FORCE): the app's connections are cut, later queries fail
    await t.http().get('/api/v2/lists').set('X-API-Key', org.apiKey).expect(503);

    const after = await scrape(t);
    expect(valueOf(after, 'http_requests_total', { method: 'GET', route: '/api/v2/lists', status: '503' })).toBe(1);
  });
});

describe('GET /metrics of node dist/main.js', () => {
  const built = useBuiltService();

  it("answers the process's metrics (started once, by main.ts) with the instance's", async () => {
    const { port } = await built.listening();
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const names = new Set(parseSamples(text).map((sample) => sample.name));
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds_count']) {
      expect({ name, present: names.has(name) }).toEqual({ name, present: true });
    }
    expect(text).toContain('# TYPE http_requests_total counter');
  });
});
