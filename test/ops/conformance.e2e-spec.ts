import { gzipSync } from 'node:zlib';
import { createOrganization, createOrgWith, suppress } from '../utils/fixtures';
import { rawPostJson } from '../utils/net';
import { createTestApp, type TestApp } from '../utils/test-app';
import { buildOpenApiDocument } from '../../src/docs/openapi';
import { OpenApiValidator, type HttpAnswer } from './openapi-validator';

/** A POST whose body bytes are sent exactly as given. */
const rawPost = async (t: TestApp, path: string, headers: Record<string, string>, body: Buffer) => ({
  ...(await rawPostJson(t, path, body, headers)),
  rawLength: body.length,
});

/**
 * Real responses of every endpoint and error, validated against the OpenAPI document the service
 * serves (status declared, body schema, declared headers, request_id = X-Request-Id). Each case
 * also asserts the status and code it means to produce, so a case cannot pass by hitting another branch.
 */
/** The document the app serves. */
async function servedDocs(t: TestApp): Promise<OpenApiValidator> {
  return new OpenApiValidator((await t.http().get('/api/docs-json').expect(200)).body);
}

describe('OpenAPI conformance of real responses', () => {
  let docs: OpenApiValidator;
  let t: TestApp;
  let key: string;
  let listA: string;
  let listB: string;
  let archived: string;
  let seq = 0;
  const email = (prefix: string) => `${prefix}.${++seq}.${Date.now()}@example.com`;

  beforeAll(async () => {
    t = await createTestApp({ IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '1000000' });
    docs = await servedDocs(t);
    const org = await createOrgWith(t.prisma, {
      name: 'Conformance',
      lists: ['A', 'B'],
      archivedLists: ['Old'],
      fields: [
        { key: 'plan', type: 'select', options: ['free', 'pro'], defaultValue: 'free' },
        { key: 'seats', type: 'number' },
        { key: 'vip', type: 'boolean' },
        { key: 'since', type: 'date' },
        { key: 'region', type: 'text', required: true, defaultValue: 'eu' },
      ],
    });
    key = org.apiKey;
    [listA, listB] = org.lists.map((list) => list.id);
    archived = org.archivedLists[0].id;
    await suppress(t.prisma, org.id, 'suppressed.conf@example.com', 'complained');
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (path: string, body: unknown) =>
    t.http().post(path).set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json').send(JSON.stringify(body));
  const get = (path: string) => t.http().get(path).set('X-API-Key', key);

  function conforms(res: HttpAnswer, method: string, path: string, status: number, expected: Record<string, unknown> = {}) {
    expect({ status: res.status, problems: docs.problems(res, method, path) }).toEqual({ status, problems: [] });
    expect(res.body).toMatchObject(expected);
  }

  describe('POST /api/v2/contacts', () => {
    const P = '/api/v2/contacts';

    it('created (201), updated (200), unchanged (200)', async () => {
      const e = email('single');
      conforms(await post(P, { email: e, listIds: [listA], fields: { firstName: 'Ada', seats: 3 } }), 'POST', P, 201, { status: 'created' });
      conforms(await post(P, { email: e, listIds: [listA, listB], fields: { firstName: 'Ada L', vip: true }, overwrite: true }), 'POST', P, 200, {
        status: 'updated',
        changedFields: ['firstName', 'vip'],
        addedListIds: [listB],
      });
      conforms(await post(P, { email: e, listIds: [listA], overwrite: true }), 'POST', P, 200, { status: 'unchanged' });
    });

    it('dry runs of created and updated', async () => {
      const e = email('dry');
      const created = await post(`${P}?dryRun=true`, { email: e, listIds: [listA] });
      conforms(created, 'POST', P, 201, { status: 'created', dryRun: true });
      expect(created.body.id).toBeUndefined();
      await post(P, { email: e, listIds: [listA] }).expect(201);
      conforms(await post(`${P}?dryRun=true`, { email: e, listIds: [listB], overwrite: true }), 'POST', P, 200, { status: 'updated', dryRun: true });
    });

    it.each([
      ['INVALID_EMAIL (email null)', () => ({ email: null, listIds: ['x'] }), () => ({ email: null })],
      ['INVALID_EMAIL', () => ({ email: 'nope', listIds: ['x'] }), () => ({ email: 'nope' })],
      ['EMPTY_LIST_IDS', () => ({ email: email('f'), listIds: [] }), () => ({})],
      ['TOO_MANY_LIST_IDS', () => ({ email: email('f'), listIds: Array.from({ length: 21 }, () => 'x') }), () => ({})],
      ['INVALID_LIST', () => ({ email: email('f'), listIds: [listA, archived, 'nope'] }), () => ({ invalidListIds: [archived, 'nope'] })],
      ['UNKNOWN_FIELD', () => ({ email: email('f'), listIds: [listA], fields: { shoeSize: 44 } }), () => ({})],
      ['FIELD_TYPE_MISMATCH', () => ({ email: email('f'), listIds: [listA], fields: { seats: '3' } }), () => ({})],
      ['REQUIRED_FIELD_MISSING', () => ({ email: email('f'), listIds: [listA], fields: { region: null } }), () => ({})],
    ])('per-contact failure %s (400)', async (label, body, extra) => {
      const code = label.split(' ')[0];
      conforms(await post(P, body()), 'POST', P, 400, { status: 'failed', code, ...extra() });
    });

    it('DUPLICATE_EMAIL and SUPPRESSED_EMAIL (409, with suppressionReason)', async () => {
      const e = email('dup');
      await post(P, { email: e, listIds: [listA] }).expect(201);
      conforms(await post(P, { email: e, listIds: [listA] }), 'POST', P, 409, { status: 'failed', code: 'DUPLICATE_EMAIL' });
      conforms(await post(P, { email: 'Suppressed.Conf@example.com', listIds: [listA] }), 'POST', P, 409, {
        status: 'failed',
        code: 'SUPPRESSED_EMAIL',
        suppressionReason: 'complained',
      });
    });

    it.each([
      ['malformed JSON', () => t.http().post(P).set('X-API-Key', key).set('Content-Type', 'application/json').send('{"email":')],
      ['empty body', () => t.http().post(P).set('X-API-Key', key).set('Content-Type', 'application/json').send('')],
      ['wrong content type', () => t.http().post(P).set('X-API-Key', key).set('Content-Type', 'text/plain').send('{}')],
      ['array body', () => post(P, [])],
      ['unknown key', () => post(P, { email: 'a@example.com', listIds: [listA], extra: 1 })],
      ['listIds null', () => post(P, { email: 'a@example.com', listIds: null })],
    ])('INVALID_REQUEST: %s (400)', async (_label, send) => {
      conforms(await send(), 'POST', P, 400, { error: { code: 'INVALID_REQUEST' } });
    });

    it('PAYLOAD_TOO_LARGE (413): declared length, and a gzip body that inflates past 1 MiB', async () => {
      const big = JSON.stringify({ email: 'a@example.com', listIds: [listA], fields: { company: 'x'.repeat(1_100_000) } });
      const declared = await post(P, JSON.parse(big));
      conforms(declared, 'POST', P, 413, { error: { code: 'PAYLOAD_TOO_LARGE' } });
      // node:http, not supertest: superagent does not send a gzip Buffer body byte for byte.
      const bomb = await rawPost(t, P, { 'x-api-key': key, 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync(Buffer.from(big)));
      expect(bomb.rawLength).toBeLessThan(10_000);
      conforms(bomb, 'POST', P, 413, { error: { code: 'PAYLOAD_TOO_LARGE' } });
    });

    it('INVALID_API_KEY (401) with WWW-Authenticate', async () => {
      const res = await t.http().post(P).set('Authorization', 'Bearer csk_wrong').set('Content-Type', 'application/json').send('{}');
      conforms(res, 'POST', P, 401, { error: { code: 'INVALID_API_KEY' } });
    });
  });

  describe('POST /api/v2/contacts/batch', () => {
    const B = '/api/v2/contacts/batch';

    it('results of every kind and the summary (200), then the same as a dry run', async () => {
      const existing = email('b-existing');
      const same = email('b-same');
      await post('/api/v2/contacts', { email: existing, listIds: [listA] }).expect(201);
      await post('/api/v2/contacts', { email: same, listIds: [listA] }).expect(201);
      const repeated = email('b-repeated');
      const contacts = [
        { email: email('b-new'), listIds: [listA] },
        { email: existing, listIds: [listB], fields: { city: 'Oslo' }, overwrite: true },
        { email: same, listIds: [listA], overwrite: true },
        { email: 42, listIds: [listA] },
        { email: repeated, listIds: [listA] },
        { email: repeated, listIds: [listA] },
        { email: email('b-bad-list'), listIds: ['nope', 'nope'] },
        { email: 'suppressed.conf@example.com', listIds: [listA] },
      ];
      const real = await post(B, { contacts });
      conforms(real, 'POST', B, 200, {
        summary: { created: 2, updated: 1, unchanged: 1, failed: 4 },
      });
      expect(real.body.results.map((r: { status: string; code?: string }) => r.code ?? r.status)).toEqual([
        'created',
        'updated',
        'unchanged',
        'INVALID_EMAIL',
        'created',
        'DUPLICATE_IN_REQUEST',
        'INVALID_LIST',
        'SUPPRESSED_EMAIL',
      ]);

      const dry = await post(`${B}?dryRun=true`, { contacts: [{ email: email('b-dry'), listIds: [listA] }] });
      conforms(dry, 'POST', B, 200, { dryRun: true, summary: { created: 1, updated: 0, unchanged: 0, failed: 0 } });
    });

    it.each([
      ['BATCH_LIMIT_EXCEEDED', () => ({ contacts: Array.from({ length: 51 }, () => ({})) })],
      ['INVALID_REQUEST', () => ({ contacts: [] })],
      ['INVALID_REQUEST', () => ({ contacts: [{ email: 'a@example.com', listIds: 'x' }] })],
      ['INVALID_REQUEST', () => [{ email: 'a@example.com' }]],
    ])('%s (400)', async (code, body) => {
      conforms(await post(B, body()), 'POST', B, 400, { error: { code } });
    });

    it('PAYLOAD_TOO_LARGE (413) and INVALID_API_KEY (401)', async () => {
      const res = await t
        .http()
        .post(B)
        .set('X-API-Key', key)
        .set('Content-Type', 'application/json')
        .set('Content-Length', '2000000')
        .send('x'.repeat(2_000_000));
      conforms(res, 'POST', B, 413, { error: { code: 'PAYLOAD_TOO_LARGE' } });
      conforms(await t.http().post(B).set('Content-Type', 'application/json').send('{}'), 'POST', B, 401, { error: { code: 'INVALID_API_KEY' } });
    });
  });

  describe('reads', () => {
    const C = '/api/v2/contacts/{email}';

    it('GET /api/v2/contacts/{email}: 200 with typed fields and suppression, 404, 400, 401', async () => {
      const e = email('read');
      await post('/api/v2/contacts', {
        email: e,
        listIds: [listA],
        fields: { firstName: 'Ada', seats: 2, vip: false, since: '2024-02-29', plan: 'pro' },
      }).expect(201);
      conforms(await get(`/api/v2/contacts/${encodeURIComponent(e.toUpperCase())}`), 'GET', C, 200, {
        contact: { email: e, listIds: [listA], fields: { firstName: 'Ada', seats: 2, vip: false, since: '2024-02-29', plan: 'pro', region: 'eu' } },
      });

      await post('/api/v2/contacts', { email: 'suppressed.conf@example.com', listIds: [listA], overwrite: true }).expect(201);
      conforms(await get('/api/v2/contacts/suppressed.conf%40example.com'), 'GET', C, 200, { contact: { suppressed: { reason: 'complained' } } });

      conforms(await get('/api/v2/contacts/nobody%40example.com'), 'GET', C, 404, { error: { code: 'CONTACT_NOT_FOUND' } });
      conforms(await get('/api/v2/contacts/not-an-email'), 'GET', C, 404, { error: { code: 'CONTACT_NOT_FOUND' } });
      conforms(await get('/api/v2/contacts/%E0%A4%A'), 'GET', C, 400, { error: { code: 'INVALID_REQUEST' } });
      conforms(await t.http().get('/api/v2/contacts/a%40example.com'), 'GET', C, 401, { error: { code: 'INVALID_API_KEY' } });
    });

    it('GET /api/v2/lists and GET /api/v2/fields (200, 401)', async () => {
      conforms(await get('/api/v2/lists'), 'GET', '/api/v2/lists', 200);
      conforms(await t.http().get('/api/v2/lists'), 'GET', '/api/v2/lists', 401);
      const fields = await get('/api/v2/fields');
      conforms(fields, 'GET', '/api/v2/fields', 200);
      expect(fields.body.custom).toEqual(
        expect.arrayContaining([expect.objectContaining({ key: 'plan', type: 'select', required: false, options: ['free', 'pro'] })]),
      );
      conforms(await t.http().get('/api/v2/fields').set('X-API-Key', 'csk_nope'), 'GET', '/api/v2/fields', 401);
    });

    it('GET /api/v2/requests/{request_id}: the stored answer of a POST (200), unknown id (404)', async () => {
      const created = await post('/api/v2/contacts', { email: email('stored'), listIds: [listA] }).expect(201);
      const R = '/api/v2/requests/{request_id}';
      conforms(await get(`/api/v2/requests/${created.body.request_id}`), 'GET', R, 200, {
        original: { request_id: created.body.request_id, status: 201, body: created.body },
      });
      conforms(await get('/api/v2/requests/00000000-0000-4000-8000-000000000000'), 'GET', R, 404, { error: { code: 'REQUEST_NOT_FOUND' } });
      conforms(await get('/api/v2/requests/%E0%A4%A'), 'GET', R, 400, { error: { code: 'INVALID_REQUEST' } });
    });

    it('unknown route (404 NOT_FOUND) matches the document’s Error404 body, with and without a key', async () => {
      for (const res of [await t.http().get('/api/v2/nothing'), await get('/api/v2/nothing'), await t.http().put('/api/v2/lists')]) {
        expect(res.status).toBe(404);
        expect(docs.schemaProblems(res.body, 'Error404')).toEqual([]);
        expect(res.body.error.code).toBe('NOT_FOUND');
        expect(res.body.request_id).toBe(res.headers['x-request-id']);
      }
    });
  });
});

describe('OpenAPI conformance of limits and failures', () => {
  let docs: OpenApiValidator;
  let t: TestApp;
  afterEach(async () => {
    await t?.close();
  });

  it('organization limit: 429 with Retry-After and the rate-limit headers', async () => {
    t = await createTestApp({ ORG_RATE_LIMIT: '1', IP_RATE_LIMIT: '1000000' });
    docs = await servedDocs(t);
    const org = await createOrganization(t.prisma);
    await t.http().get('/api/v2/lists').set('X-API-Key', org.apiKey).expect(200);
    const res = await t.http().post('/api/v2/contacts').set('X-API-Key', org.apiKey).set('Content-Type', 'application/json').send('{}');
    expect({ status: res.status, problems: docs.problems(res, 'POST', '/api/v2/contacts') }).toEqual({ status: 429, problems: [] });
    expect(res.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('per-IP limit: 429 with Retry-After', async () => {
    t = await createTestApp({ IP_RATE_LIMIT: '1' });
    docs = new OpenApiValidator(buildOpenApiDocument(t.app)); // the only request the IP may send is the one tested
    await t.http().get('/api/v2/fields');
    const res = await t.http().get('/api/v2/fields');
    expect({ status: res.status, problems: docs.problems(res, 'GET', '/api/v2/fields') }).toEqual({ status: 429, problems: [] });
  });

  // Contract section 8: a database that cannot serve is 503 SERVICE_UNAVAILABLE with Retry-After (was 500).
  it('database gone: 503 SERVICE_UNAVAILABLE without internals', async () => {
    t = await createTestApp({ IP_RATE_LIMIT: '1000000' });
    docs = await servedDocs(t);
    const org = await createOrganization(t.prisma);
    await t.database.drop();
    const res = await t.http().get('/api/v2/lists').set('X-API-Key', org.apiKey);
    expect({ status: res.status, problems: docs.problems(res, 'GET', '/api/v2/lists') }).toEqual({ status: 503, problems: [] });
    expect(res.headers['retry-after']).toBe('1');
    expect(res.text).not.toMatch(/prisma|SELECT|at .*\.ts/i);
  });
});
