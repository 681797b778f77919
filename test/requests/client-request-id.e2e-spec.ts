import type { Response } from 'supertest';
import { Org } from '../contract/helpers';
import { OpenApiValidator } from '../ops/openapi-validator';
import { portOf, rawPost } from '../utils/net';
import { createTestApp, type TestApp } from '../utils/test-app';

const HOUR = 60 * 60 * 1000;

describe('X-Client-Request-Id and GET /api/v2/requests?clientRequestId= (docs/api.md#lost-responses)', () => {
  let t: TestApp;
  let docs: OpenApiValidator;
  beforeAll(async () => {
    t = await createTestApp();
    docs = new OpenApiValidator((await t.http().get('/api/docs-json').expect(200)).body);
  });
  afterAll(async () => {
    await t.close();
  });

  type Caller = Awaited<ReturnType<typeof Org.withList>>;
  const auth = (c: Caller) => ({ Authorization: `Bearer ${c.org.key}` });
  const postWithId = (c: Caller, path: string, body: unknown, clientRequestId: string) =>
    t.http().post(path).set(auth(c)).set('X-Client-Request-Id', clientRequestId).send(body as object);
  const findByClientId = (c: Caller, id: string) =>
    t.http().get(`/api/v2/requests?clientRequestId=${encodeURIComponent(id)}`).set(auth(c));

  function expectNotFound(res: Response) {
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ request_id: res.headers['x-request-id'], error: { code: 'REQUEST_NOT_FOUND', message: expect.any(String) } });
  }
  function expectInvalid(res: Response) {
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ request_id: res.headers['x-request-id'], error: { code: 'INVALID_REQUEST', message: expect.any(String) } });
  }

  it('single and batch: echoed, stored, found by the client id with the same body as GET /requests/{request_id}', async () => {
    const c = await Org.withList(t);
    const single = await postWithId(c, '/api/v2/contacts', { email: 'ada@example.com', listIds: [c.list] }, 'sync-1.a:1_x').expect(201);
    expect(single.headers['x-client-request-id']).toBe('sync-1.a:1_x');
    const batch = await postWithId(c, '/api/v2/contacts/batch', { contacts: [{ email: 'ada@example.com', listIds: [c.list] }] }, 'batch-1').expect(200);
    expect(batch.headers['x-client-request-id']).toBe('batch-1');
    expect(batch.body.results[0].code).toBe('DUPLICATE_EMAIL');

    for (const [post, clientId] of [
      [single, 'sync-1.a:1_x'],
      [batch, 'batch-1'],
    ] as const) {
      const found = await findByClientId(c, clientId).expect(200);
      expect(found.body).toStrictEqual({
        request_id: found.headers['x-request-id'],
        original: { request_id: post.headers['x-request-id'], client_request_id: clientId, status: post.status, body: post.body },
      });
      expect(JSON.stringify(found.body.original.body)).toBe(post.text);
      expect(found.body.request_id).not.toBe(post.headers['x-request-id']);
      expect(docs.problems(found, 'get', '/api/v2/requests')).toEqual([]);
      // GET /requests/{request_id} carries the client id too.
      const byServerId = await c.org.get(`/api/v2/requests/${post.headers['x-request-id']}`).expect(200);
      expect(byServerId.body.original).toStrictEqual(found.body.original);
    }
    expect(docs.problems(single, 'post', '/api/v2/contacts')).toEqual([]);
  });

  it('a POST without the header stores no client id: original has no client_request_id', async () => {
    const c = await Org.withList(t);
    const post = await c.org.postContact({ email: 'plain@example.com', listIds: [c.list] }).expect(201);
    expect(post.headers['x-client-request-id']).toBeUndefined();
    const read = await c.org.get(`/api/v2/requests/${post.headers['x-request-id']}`).expect(200);
    expect(Object.keys(read.body.original)).toEqual(['request_id', 'status', 'body']);
  });

  it('several POSTs under one id: the most recent stored answer wins', async () => {
    const c = await Org.withList(t);
    await postWithId(c, '/api/v2/contacts', { email: 'twice@example.com', listIds: [c.list] }, 'same').expect(201);
    const second = await postWithId(c, '/api/v2/contacts', { email: 'twice@example.com', listIds: [c.list] }, 'same').expect(409);
    const found = await findByClientId(c, 'same').expect(200);
    expect(found.body.original.request_id).toBe(second.headers['x-request-id']);
    expect(found.body.original.body.code).toBe('DUPLICATE_EMAIL');
    expect(await t.prisma.storedResponse.count({ where: { organizationId: c.org.id, clientRequestId: 'same' } })).toBe(2);
  });

  it("none, another organization's and expired answers are 404 REQUEST_NOT_FOUND", async () => {
    const owner = await Org.withList(t);
    const other = await Org.withList(t);
    const post = await postWithId(owner, '/api/v2/contacts', { email: 'mine@example.com', listIds: [owner.list] }, 'mine').expect(201);
    expectNotFound(await findByClientId(owner, 'never-sent'));
    expectNotFound(await findByClientId(other, 'mine'));
    await findByClientId(owner, 'mine').expect(200);

    await t.prisma.storedResponse.update({
      where: { requestId: post.headers['x-request-id'] },
      data: { createdAt: new Date(Date.now() - 24 * HOUR - 1000) },
    });
    expectNotFound(await findByClientId(owner, 'mine'));
  });

  it('dry runs and request-level errors are not stored, but a valid id is still echoed', async () => {
    const c = await Org.withList(t);
    const dry = await postWithId(c, '/api/v2/contacts?dryRun=true', { email: 'dry@example.com', listIds: [c.list] }, 'dry').expect(201);
    expect(dry.headers['x-client-request-id']).toBe('dry');
    const shape = await postWithId(c, '/api/v2/contacts/batch', { contacts: 'x' }, 'shape').expect(400);
    expect(shape.headers['x-client-request-id']).toBe('shape');
    expectNotFound(await findByClientId(c, 'dry'));
    expectNotFound(await findByClientId(c, 'shape'));
  });

  it('query parameter missing, empty, repeated, too long or with other characters: 400 INVALID_REQUEST', async () => {
    const c = await Org.withList(t);
    for (const query of ['', '?clientRequestId=', '?clientRequestId=a&clientRequestId=b', `?clientRequestId=${'a'.repeat(129)}`, '?clientRequestId=a%20b', '?clientRequestId=%C3%A9', '?clientRequestId=a/b']) {
      const res = await c.org.get(`/api/v2/requests${query}`);
      expectInvalid(res);
      expect(docs.problems(res, 'get', '/api/v2/requests')).toEqual([]);
    }
    // 128 characters of every allowed kind is valid (and simply not found).
    expectNotFound(await findByClientId(c, `AZaz09._:-${'x'.repeat(118)}`));
  });

  describe('invalid header: 400 INVALID_REQUEST, after the key and the limits, before the body', () => {
    /** Raw request (test/utils/net.ts), so empty and repeated headers are sent exactly as given. */
    async function postWithRawHeaders(headers: [string, string][], body: string) {
      const res = await rawPost(portOf(t), '/api/v2/contacts', headers.flat(), [Buffer.from(body)]);
      return { ...res, body: JSON.parse(res.body || 'null') as { error?: { code: string } } | null };
    }

    it('empty, repeated, 129 characters, a space, a slash, non-ASCII', async () => {
      const c = await Org.withList(t);
      const body = JSON.stringify({ email: 'never@example.com', listIds: [c.list] });
      const { port } = t.app.getHttpServer().address() as { port: number };
      const base: [string, string][] = [
        ['Host', `127.0.0.1:${port}`], // raw headers: Node adds no Host itself
        ['Authorization', `Bearer ${c.org.key}`],
        ['Content-Type', 'application/json'],
        ['Content-Length', String(Buffer.byteLength(body))],
      ];
      const cases: [string, string][][] = [
        [['X-Client-Request-Id', '']],
        [['X-Client-Request-Id', 'a'], ['X-Client-Request-Id', 'b']],
        [['X-Client-Request-Id', 'a'], ['X-Client-Request-Id', 'a']],
        [['X-Client-Request-Id', 'a'.repeat(129)]],
        [['X-Client-Request-Id', 'a b']],
        [['X-Client-Request-Id', 'a/b']],
        [['X-Client-Request-Id', 'caf\u00e9']],
      ];
      for (const extra of cases) {
        const res = await postWithRawHeaders([...base, ...extra], body);
        expect([extra, res.status, res.body?.error?.code]).toEqual([extra, 400, 'INVALID_REQUEST']);
        expect(res.headers['x-client-request-id']).toBeUndefined();
        expect(res.headers['x-ratelimit-remaining']).toBeDefined(); // the limits came first
      }
      expect(await t.prisma.contact.count({ where: { organizationId: c.org.id } })).toBe(0);
    });

    it('a bad key is 401 and an exhausted limit 429 before the header is looked at', async () => {
      const limited = await createTestApp({ ORG_RATE_LIMIT: '1' }, { database: t.database });
      try {
        const c = await Org.withList(t);
        const bad = await limited.http().post('/api/v2/contacts').set('Authorization', 'Bearer nope').set('X-Client-Request-Id', '').send({});
        expect([bad.status, bad.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
        await limited.http().get('/api/v2/lists').set(auth(c)).expect(200);
        const throttled = await limited.http().post('/api/v2/contacts').set(auth(c)).set('X-Client-Request-Id', 'a b').send({});
        expect([throttled.status, throttled.body.error.code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
      } finally {
        await limited.close();
      }
    });

    it('the body is never read: an invalid header with a malformed or oversized body is still the header error', async () => {
      const c = await Org.withList(t);
      const res = await t
        .http()
        .post('/api/v2/contacts/batch')
        .set(auth(c))
        .set('Content-Type', 'application/json')
        .set('X-Client-Request-Id', 'no spaces')
        .send('{"contacts":');
      expectInvalid(res);
      expect(res.body.error.message).toMatch(/X-Client-Request-Id/);
    });
  });
});
