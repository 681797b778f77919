/**
 * Contract 14 "Webhooks", 15 (admin scope) and 16 (shapes, no-body POSTs, PATCH rules): the
 * endpoints, from outside. URLs use a literal public address so no DNS is involved; deliveries are
 * off in this file (test/webhooks/ covers them).
 */
import { createTestApp, type TestApp } from '../utils/test-app';
import { expectRequestError, Org, type Res, UUID_RE } from './helpers';
import { adminKey } from './lifecycle-helpers';

const HOOK = 'https://93.184.216.34/hooks/contact-sync';
const EVERY_TYPE = [
  'contact.created', 'contact.updated', 'contact.list_removed', 'contact.deleted', 'contact.erased',
  'suppression.created', 'suppression.deleted', 'list.created', 'list.updated', 'field.created', 'field.updated',
  'import.finished',
];

describe('webhook endpoints (contract 14-16)', () => {
  let t: TestApp;
  let org: Org;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', WEBHOOK_DELIVERY: 'false' });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    org = await Org.create(t);
    key = await adminKey(org);
  });

  const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: unknown, apiKey = key): Promise<Res> => {
    const req = t.http()[method](path).set('Authorization', `Bearer ${apiKey}`);
    return body === undefined ? req : req.set('Content-Type', 'application/json').send(body as string | object);
  };
  const create = (body: unknown) => call('post', '/api/v2/webhooks', body);

  it('POST answers 201 with the webhook and a whsec_ secret shown once; GET never shows it', async () => {
    const res = await create({ url: HOOK, types: ['contact.created', 'list.created'], description: 'CRM' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      request_id: res.headers['x-request-id'],
      webhook: { id: expect.stringMatching(UUID_RE), url: HOOK, types: ['contact.created', 'list.created'], description: 'CRM', enabled: true, createdAt: expect.any(String) },
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
    });
    expect(Buffer.from(res.body.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const id = res.body.webhook.id;
    const one = await call('get', `/api/v2/webhooks/${id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ request_id: one.headers['x-request-id'], webhook: res.body.webhook });
    const all = await call('get', '/api/v2/webhooks');
    expect(all.body).toEqual({ request_id: all.headers['x-request-id'], webhooks: [res.body.webhook] });
    expect(JSON.stringify([one.body, all.body])).not.toContain(res.body.secret);
  });

  it('types absent means every event type; an unknown, empty or repeated type is 400', async () => {
    const res = await create({ url: HOOK });
    expect(res.status).toBe(201);
    expect(res.body.webhook.types).toEqual(EVERY_TYPE);
    for (const types of [['contact.nope'], [], ['list.created', 'list.created'], 'list.created', [1]]) {
      expectRequestError(await create({ url: HOOK, types }), 400, 'INVALID_REQUEST');
    }
  });

  it('a url that is not https, not a URL, or a non-public address is 400; unknown keys and null are 400', async () => {
    for (const url of ['http://93.184.216.34/x', 'ftp://93.184.216.34/', 'not a url', 'https://127.0.0.1/x', 'https://10.0.0.1/', 'https://[::1]/',
      'https://169.254.169.254/latest', 'https://[::ffff:127.0.0.1]/', 'https://100.64.0.1/', 'https://0.0.0.0/', null, 42]) {
      expectRequestError(await create({ url }), 400, 'INVALID_REQUEST');
    }
    // A port outside 1-65535 (port 0 included).
    for (const url of ['https://93.184.216.34:0/x', 'https://93.184.216.34:00/', 'https://93.184.216.34:65536/', 'https://[2606:4700::1]:0/']) {
      const res = await create({ url });
      expectRequestError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toBe('url port must be from 1 to 65535');
    }
    expect((await create({ url: 'https://93.184.216.34:65535/x' })).status).toBe(201);
    expect((await call('get', '/api/v2/webhooks')).body.webhooks).toHaveLength(1);
    await call('delete', `/api/v2/webhooks/${(await call('get', '/api/v2/webhooks')).body.webhooks[0].id}`);
    expectRequestError(await create({}), 400, 'INVALID_REQUEST');
    expectRequestError(await create({ url: HOOK, secret: 'mine' }), 400, 'INVALID_REQUEST');
    expectRequestError(await create({ url: HOOK, description: null }), 400, 'INVALID_REQUEST');
    expect((await call('get', '/api/v2/webhooks')).body.webhooks).toEqual([]); // a request-level error writes nothing
  });

  it('the 21st webhook of an organization is 409 WEBHOOK_LIMIT_REACHED, also when created concurrently', async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, () => create({ url: HOOK })));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
    for (const r of answers.filter((a) => a.status !== 201)) expectRequestError(r, 409, 'WEBHOOK_LIMIT_REACHED');
    expect((await call('get', '/api/v2/webhooks')).body.webhooks).toHaveLength(20);
    const other = await Org.create(t);
    expect((await call('post', '/api/v2/webhooks', { url: HOOK }, await adminKey(other))).status).toBe(201); // per organization
  });

  it('PATCH changes url, types and enabled; no known key, an unknown key or a bad value is 400', async () => {
    const { id } = (await create({ url: HOOK })).body.webhook;
    const res = await call('patch', `/api/v2/webhooks/${id}`, { url: 'https://93.184.216.35/v2', types: ['field.updated'], enabled: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ request_id: res.headers['x-request-id'], webhook: expect.objectContaining({ id, url: 'https://93.184.216.35/v2', types: ['field.updated'], enabled: false }) });
    for (const body of [{}, { color: 'red' }, { enabled: 'yes' }, { url: 'http://93.184.216.34/' }, { url: 'https://192.168.0.1/' }, { url: 'https://93.184.216.35:0/v2' },
      { url: 'https://93.184.216.35:65536/v2' }, { types: ['x'] }, { enabled: true, extra: 1 }]) {
      expectRequestError(await call('patch', `/api/v2/webhooks/${id}`, body), 400, 'INVALID_REQUEST');
    }
    expect((await call('get', `/api/v2/webhooks/${id}`)).body.webhook).toEqual(res.body.webhook);
  });

  it('rotate-secret answers a new secret and takes no body (none, empty or {} only)', async () => {
    const created = (await create({ url: HOOK })).body;
    const path = `/api/v2/webhooks/${created.webhook.id}/rotate-secret`;
    const first = await t.http().post(path).set('Authorization', `Bearer ${key}`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ request_id: first.headers['x-request-id'], secret: expect.stringMatching(/^whsec_/) });
    expect(first.body.secret).not.toBe(created.secret);
    expect((await t.http().post(path).set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json').send('')).status).toBe(200);
    expect((await call('post', path, {})).status).toBe(200);
    expectRequestError(await call('post', path, { secret: 'x' }), 400, 'INVALID_REQUEST');
    expectRequestError(await call('post', path, []), 400, 'INVALID_REQUEST');
  });

  it('DELETE answers 200 { id, status: deleted }; then every route of that id is 404 WEBHOOK_NOT_FOUND', async () => {
    const { id } = (await create({ url: HOOK })).body.webhook;
    const res = await call('delete', `/api/v2/webhooks/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ request_id: res.headers['x-request-id'], id, status: 'deleted' });
    expectRequestError(await call('get', `/api/v2/webhooks/${id}`), 404, 'WEBHOOK_NOT_FOUND');
    expectRequestError(await call('patch', `/api/v2/webhooks/${id}`, { enabled: true }), 404, 'WEBHOOK_NOT_FOUND');
    expectRequestError(await call('delete', `/api/v2/webhooks/${id}`), 404, 'WEBHOOK_NOT_FOUND');
    expectRequestError(await call('post', `/api/v2/webhooks/${id}/rotate-secret`), 404, 'WEBHOOK_NOT_FOUND');
    expectRequestError(await call('get', `/api/v2/webhooks/${id}/deliveries`), 404, 'WEBHOOK_NOT_FOUND');
    expectRequestError(await call('get', '/api/v2/webhooks/not-an-id'), 404, 'WEBHOOK_NOT_FOUND');
  });

  it('another organization’s webhook is 404 and is not listed', async () => {
    const { id } = (await create({ url: HOOK })).body.webhook;
    const other = await Org.create(t);
    const otherKey = await adminKey(other);
    expectRequestError(await call('get', `/api/v2/webhooks/${id}`, undefined, otherKey), 404, 'WEBHOOK_NOT_FOUND');
    expectRequestError(await call('delete', `/api/v2/webhooks/${id}`, undefined, otherKey), 404, 'WEBHOOK_NOT_FOUND');
    expect((await call('get', '/api/v2/webhooks', undefined, otherKey)).body.webhooks).toEqual([]);
  });

  it('every webhook route needs the admin scope: 403 INSUFFICIENT_SCOPE for contacts:write and contacts:read keys', async () => {
    const { id } = (await create({ url: HOOK })).body.webhook;
    for (const scope of ['contacts:read', 'contacts:write'] as const) {
      const weak = await org.newKey({ scope });
      for (const [method, path, body] of [
        ['get', '/api/v2/webhooks'], ['post', '/api/v2/webhooks', { url: HOOK }], ['get', `/api/v2/webhooks/${id}`],
        ['patch', `/api/v2/webhooks/${id}`, { enabled: false }], ['delete', `/api/v2/webhooks/${id}`],
        ['post', `/api/v2/webhooks/${id}/rotate-secret`], ['get', `/api/v2/webhooks/${id}/deliveries`],
      ] as const) {
        expectRequestError(await call(method, path, body, weak), 403, 'INSUFFICIENT_SCOPE');
      }
    }
    expect((await call('get', `/api/v2/webhooks/${id}`)).body.webhook.enabled).toBe(true);
  });

  it('GET deliveries: { deliveries: [], nextCursor: null } at first; limit 1-1000; a bad cursor is 400', async () => {
    const { id } = (await create({ url: HOOK })).body.webhook;
    const res = await call('get', `/api/v2/webhooks/${id}/deliveries`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ request_id: res.headers['x-request-id'], deliveries: [], nextCursor: null });
    expect((await call('get', `/api/v2/webhooks/${id}/deliveries?limit=1000`)).status).toBe(200);
    for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'cursor=%21%21', 'cursor=abc']) {
      expectRequestError(await call('get', `/api/v2/webhooks/${id}/deliveries?${q}`), 400, 'INVALID_REQUEST');
    }
  });
});
