import { gzipSync } from 'node:zlib';
import { createApiKey, createOrganization, createOrgWith, suppress } from '../utils/fixtures';
import { rawPostJson } from '../utils/net';
import { startReceiver } from '../utils/webhook-receiver';
import { createTestApp, useTestApp, type TestApp } from '../utils/test-app';
import { buildOpenApiDocument } from '../../src/docs/openapi';
import { OpenApiValidator, type HttpAnswer } from './openapi-validator';

/**
 * Real responses of every endpoint and error, validated against the OpenAPI document the service
 * serves (status declared, body schema, declared headers, request_id = X-Request-Id). Each case
 * also asserts the status and code it means to produce, so a case cannot pass by hitting another branch.
 */
/** The document the app serves. */
async function servedDocs(t: TestApp): Promise<OpenApiValidator> {
  return new OpenApiValidator((await t.http().get('/api/docs-json').expect(200)).body);
}

// One app for the endpoint and webhook routes (each describe has an organization of its own): deliveries
// on, to a receiver on this machine (allowed by WEBHOOK_ALLOW_INSECURE), so the deliveries log has rows.
// The limits and failures below need apps of their own.
const shared = useTestApp({ WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_POLL_MS: '50' });

describe('OpenAPI conformance of real responses', () => {
  let docs: OpenApiValidator;
  let t: TestApp;
  let key: string;
  let adminKey: string;
  let orgId: string;
  let listA: string;
  let listB: string;
  let archived: string;
  let seq = 0;
  const email = (prefix: string) => `${prefix}.${++seq}.${Date.now()}@example.com`;

  beforeAll(async () => {
    t = shared.t;
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
    orgId = org.id;
    adminKey = (await createApiKey(t.prisma, org.id, { scope: 'admin' })).key;
    [listA, listB] = org.lists.map((list) => list.id);
    archived = org.archivedLists[0].id;
    await suppress(t.prisma, org.id, 'suppressed.conf@example.com', 'complained');
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
      const compressed = gzipSync(Buffer.from(big));
      expect(compressed.length).toBeLessThan(10_000);
      const bomb = await rawPostJson(t, P, compressed, { 'x-api-key': key, 'content-type': 'application/json', 'content-encoding': 'gzip' });
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

    it('INSUFFICIENT_SCOPE (403) on a read and a write route', async () => {
      const reader = (await createApiKey(t.prisma, (await createOrganization(t.prisma)).id, { scope: 'contacts:read' })).key;
      const refused = await t.http().post('/api/v2/contacts').set('Authorization', `Bearer ${reader}`).send({});
      conforms(refused, 'POST', '/api/v2/contacts', 403, { error: { code: 'INSUFFICIENT_SCOPE' } });
      conforms(await post('/api/v2/lists', { name: 'Nope' }), 'POST', '/api/v2/lists', 403, { error: { code: 'INSUFFICIENT_SCOPE' } });
    });

    it('GET /api/v2/contacts: pages (200, nextCursor string then null), 400, 404, 401', async () => {
      const L = '/api/v2/contacts';
      for (const e of [email('page'), email('page')]) await post('/api/v2/contacts', { email: e, listIds: [listB], fields: { seats: 1 } }).expect(201);
      const first = await get(`/api/v2/contacts?limit=1&listId=${listB}`);
      conforms(first, 'GET', L, 200, { contacts: [{ listIds: expect.arrayContaining([listB]) }] });
      expect(typeof first.body.nextCursor).toBe('string');
      const last = await get(`/api/v2/contacts?limit=5&listId=${listB}&cursor=${encodeURIComponent(first.body.nextCursor)}`);
      conforms(last, 'GET', L, 200, { nextCursor: null });
      conforms(await get('/api/v2/contacts?suppressed=true&updatedSince=2020-01-01T00:00:00Z'), 'GET', L, 200);
      conforms(await get('/api/v2/contacts?limit=0'), 'GET', L, 400, { error: { code: 'INVALID_REQUEST' } });
      conforms(await get('/api/v2/contacts?cursor=nope'), 'GET', L, 400, { error: { code: 'INVALID_REQUEST' } });
      conforms(await get('/api/v2/contacts?listId=00000000-0000-4000-8000-000000000000'), 'GET', L, 404, { error: { code: 'LIST_NOT_FOUND' } });
      conforms(await t.http().get('/api/v2/contacts'), 'GET', L, 401, { error: { code: 'INVALID_API_KEY' } });
    });
  });

  describe('removing from lists and deleting', () => {
    const del = (path: string) => t.http().delete(path).set('Authorization', `Bearer ${key}`);
    const ONE = '/api/v2/lists/{listId}/contacts/{email}';
    const BATCH = '/api/v2/lists/{listId}/contacts/remove';
    const D = '/api/v2/contacts/{email}';

    it('DELETE /api/v2/lists/{listId}/contacts/{email}: removed, unchanged (200), 404 both codes, 409, 400, 401', async () => {
      const e = email('rm');
      await post('/api/v2/contacts', { email: e, listIds: [listA, listB, archived].slice(0, 2) }).expect(201);
      conforms(await del(`/api/v2/lists/${listB}/contacts/${encodeURIComponent(e)}`), 'DELETE', ONE, 200, { status: 'removed', listId: listB });
      conforms(await del(`/api/v2/lists/${listB}/contacts/${encodeURIComponent(e)}`), 'DELETE', ONE, 200, { status: 'unchanged' });
      conforms(await del(`/api/v2/lists/${listA}/contacts/${encodeURIComponent(e)}`), 'DELETE', ONE, 409, { error: { code: 'LAST_LIST_MEMBERSHIP' } });
      conforms(await del(`/api/v2/lists/${listA}/contacts/nobody%40example.com`), 'DELETE', ONE, 404, { error: { code: 'CONTACT_NOT_FOUND' } });
      conforms(await del(`/api/v2/lists/nope/contacts/nobody%40example.com`), 'DELETE', ONE, 404, { error: { code: 'LIST_NOT_FOUND' } });
      conforms(await del(`/api/v2/lists/${listA}/contacts/%E0%A4%A`), 'DELETE', ONE, 400, { error: { code: 'INVALID_REQUEST' } });
      conforms(await t.http().delete(`/api/v2/lists/${listA}/contacts/a%40example.com`), 'DELETE', ONE, 401, { error: { code: 'INVALID_API_KEY' } });
    });

    it('POST /api/v2/lists/{listId}/contacts/remove: rows of every kind (200), 400 both codes, 404, 401', async () => {
      const [a, b] = [email('rmb'), email('rmb')];
      await post('/api/v2/contacts/batch', { contacts: [{ email: a, listIds: [listA, listB] }, { email: b, listIds: [listB] }] }).expect(200);
      conforms(await post(`/api/v2/lists/${listB}/contacts/remove`, { emails: [a, 'x', 7, a, b, 'ghost@example.com', a.replace('rmb', 'zz')] }), 'POST', BATCH, 200, {
        results: [
          { index: 0, status: 'removed' },
          { index: 1, code: 'INVALID_EMAIL' },
          { index: 2, email: null, code: 'INVALID_EMAIL' },
          { index: 3, code: 'DUPLICATE_IN_REQUEST' },
          { index: 4, code: 'LAST_LIST_MEMBERSHIP' },
          { index: 5, code: 'CONTACT_NOT_FOUND' },
          { index: 6, code: 'CONTACT_NOT_FOUND' },
        ],
      });
      conforms(await post(`/api/v2/lists/${listA}/contacts/remove`, { emails: [b] }), 'POST', BATCH, 200, { results: [{ status: 'unchanged' }] });
      conforms(await post(`/api/v2/lists/${listA}/contacts/remove`, { emails: [] }), 'POST', BATCH, 400, { error: { code: 'INVALID_REQUEST' } });
      conforms(await post(`/api/v2/lists/${listA}/contacts/remove`, { emails: Array(51).fill(a) }), 'POST', BATCH, 400, {
        error: { code: 'BATCH_LIMIT_EXCEEDED' },
      });
      conforms(await post('/api/v2/lists/nope/contacts/remove', { emails: [a] }), 'POST', BATCH, 404, { error: { code: 'LIST_NOT_FOUND' } });
      conforms(await t.http().post(`/api/v2/lists/${listA}/contacts/remove`).send({ emails: [a] }), 'POST', BATCH, 401, {
        error: { code: 'INVALID_API_KEY' },
      });
    });

    it('DELETE /api/v2/contacts/{email}: deleted (200), 404, 400, 401', async () => {
      const e = email('del');
      await post('/api/v2/contacts', { email: e, listIds: [listA] }).expect(201);
      conforms(await del(`/api/v2/contacts/${encodeURIComponent(e)}`), 'DELETE', D, 200, { email: e, status: 'deleted' });
      conforms(await del(`/api/v2/contacts/${encodeURIComponent(e)}`), 'DELETE', D, 404, { error: { code: 'CONTACT_NOT_FOUND' } });
      conforms(await del('/api/v2/contacts/%E0%A4%A'), 'DELETE', D, 400, { error: { code: 'INVALID_REQUEST' } });
      conforms(await t.http().delete('/api/v2/contacts/a%40example.com'), 'DELETE', D, 401, { error: { code: 'INVALID_API_KEY' } });
    });
  });

  describe('unknown routes', () => {
    it('unknown route (404 NOT_FOUND) matches the document’s Error404 body, with and without a key', async () => {
      for (const res of [await t.http().get('/api/v2/nothing'), await get('/api/v2/nothing'), await t.http().put('/api/v2/lists')]) {
        expect(res.status).toBe(404);
        expect(docs.schemaProblems(res.body, 'Error404')).toEqual([]);
        expect(res.body.error.code).toBe('NOT_FOUND');
        expect(res.body.request_id).toBe(res.headers['x-request-id']);
      }
    });
  });
  describe('lists and custom fields (admin scope)', () => {
    const send = (method: 'post' | 'patch', path: string, body: unknown) =>
      t.http()[method](path).set('Authorization', `Bearer ${adminKey}`).set('Content-Type', 'application/json').send(JSON.stringify(body));

    it('POST /api/v2/lists (201, 400) and PATCH /api/v2/lists/{id} (200, 400, 404)', async () => {
      const created = await send('post', '/api/v2/lists', { name: 'Conformance list' });
      conforms(created, 'POST', '/api/v2/lists', 201, { list: { name: 'Conformance list', archived: false } });
      conforms(await send('post', '/api/v2/lists', { name: '' }), 'POST', '/api/v2/lists', 400, { error: { code: 'INVALID_REQUEST' } });
      const P = '/api/v2/lists/{id}';
      const id = created.body.list.id as string;
      conforms(await send('patch', `/api/v2/lists/${id}`, { archived: true, name: 'Renamed' }), 'PATCH', P, 200, {
        list: { id, name: 'Renamed', archived: true },
      });
      conforms(await send('patch', `/api/v2/lists/${id}`, {}), 'PATCH', P, 400, { error: { code: 'INVALID_REQUEST' } });
      conforms(await send('patch', '/api/v2/lists/unknown-list', { name: 'x' }), 'PATCH', P, 404, { error: { code: 'LIST_NOT_FOUND' } });
    });

    it('POST /api/v2/fields (201, 400, 409) and PATCH /api/v2/fields/{key} (200, 400, 404)', async () => {
      const F = '/api/v2/fields';
      conforms(await send('post', F, { key: 'tier', type: 'select', options: ['a', 'b'], defaultValue: 'a' }), 'POST', F, 201, {
        field: { key: 'tier', type: 'select', required: false, defaultValue: 'a', options: ['a', 'b'] },
      });
      // With a default: later tests of this file still create contacts without sending it (rule 10).
      conforms(await send('post', F, { key: 'joined', type: 'date', required: true, defaultValue: '2020-01-01' }), 'POST', F, 201, {
        field: { key: 'joined', type: 'date', required: true, defaultValue: '2020-01-01', options: null },
      });
      conforms(await send('post', F, { key: 'tier', type: 'text' }), 'POST', F, 409, { error: { code: 'FIELD_KEY_TAKEN' } });
      conforms(await send('post', F, { key: 'x', type: 'nope' }), 'POST', F, 400, { error: { code: 'INVALID_REQUEST' } });
      const P = '/api/v2/fields/{key}';
      conforms(await send('patch', '/api/v2/fields/tier', { options: ['a', 'b', 'c'], defaultValue: 'c', required: true }), 'PATCH', P, 200, {
        field: { key: 'tier', options: ['a', 'b', 'c'], defaultValue: 'c', required: true },
      });
      conforms(await send('patch', '/api/v2/fields/tier', { options: ['a'] }), 'PATCH', P, 400, { error: { code: 'INVALID_REQUEST' } });
      conforms(await send('patch', '/api/v2/fields/nothing', { required: true }), 'PATCH', P, 404, { error: { code: 'FIELD_NOT_FOUND' } });
    });
  });

  describe('erasure and suppressions', () => {
    const S = '/api/v2/suppressions';
    const D = '/api/v2/suppressions/{email}';
    const E = '/api/v2/contacts/{email}/erase';
    // Erase and lifting a suppression need the admin scope.
    const del = (path: string) => t.http().delete(path).set('X-API-Key', adminKey);
    const erase = (path: string, body: unknown) =>
      t.http().post(path).set('X-API-Key', adminKey).set('Content-Type', 'application/json').send(JSON.stringify(body));

    it('POST /api/v2/suppressions: per-row results (200), 400 INVALID_REQUEST and BATCH_LIMIT_EXCEEDED, 401', async () => {
      const a = email('sup');
      conforms(await post(S, { suppressions: [{ email: a, reason: 'bounced' }, { email: 'nope', reason: 'bounced' }, { email: a, reason: 'complained' }] }), 'POST', S, 200, {
        results: [{ status: 'suppressed', reason: 'bounced' }, { code: 'INVALID_EMAIL' }, { code: 'DUPLICATE_IN_REQUEST' }],
      });
      conforms(await post(S, { suppressions: [{ email: a, reason: 'unsubscribed' }] }), 'POST', S, 200, { results: [{ status: 'unchanged', reason: 'bounced' }] });
      conforms(await post(S, { suppressions: [{ email: a, reason: 'spam' }] }), 'POST', S, 400, { error: { code: 'INVALID_REQUEST' } });
      const many = Array.from({ length: 51 }, (_, i) => ({ email: `m${i}@example.com`, reason: 'bounced' }));
      conforms(await post(S, { suppressions: many }), 'POST', S, 400, { error: { code: 'BATCH_LIMIT_EXCEEDED' } });
      conforms(await t.http().post(S).send({}), 'POST', S, 401, { error: { code: 'INVALID_API_KEY' } });
    });

    it('GET /api/v2/suppressions: a page with nextCursor (200), the last page, 400', async () => {
      await post(S, { suppressions: [{ email: email('page'), reason: 'unsubscribed' }, { email: email('page'), reason: 'unsubscribed' }] }).expect(200);
      const first = await get(`${S}?limit=1&reason=unsubscribed`);
      conforms(first, 'GET', S, 200, { nextCursor: expect.any(String) });
      conforms(await get(`${S}?limit=1000&reason=unsubscribed&cursor=${first.body.nextCursor}`), 'GET', S, 200, { nextCursor: null });
      conforms(await get(`${S}?limit=0`), 'GET', S, 400, { error: { code: 'INVALID_REQUEST' } });
    });

    it('DELETE /api/v2/suppressions/{email}: 200, 404 SUPPRESSION_NOT_FOUND, 409 SUPPRESSION_LOCKED', async () => {
      const b = email('lift');
      await post(S, { suppressions: [{ email: b, reason: 'bounced' }] }).expect(200);
      conforms(await del(`${S}/${encodeURIComponent(b)}`), 'DELETE', D, 200, { email: b, status: 'unsuppressed' });
      conforms(await del(`${S}/${encodeURIComponent(b)}`), 'DELETE', D, 404, { error: { code: 'SUPPRESSION_NOT_FOUND' } });
      conforms(await del(`${S}/suppressed.conf%40example.com`), 'DELETE', D, 409, { error: { code: 'SUPPRESSION_LOCKED' } });
      conforms(await del(`${S}/%E0%A4%A`), 'DELETE', D, 400, { error: { code: 'INVALID_REQUEST' } });
    });

    it('POST /api/v2/contacts/{email}/erase: 200 (erased and never seen), 400 for a body', async () => {
      const e = email('erase');
      await post('/api/v2/contacts', { email: e, listIds: [listA] }).expect(201);
      conforms(await t.http().post(`/api/v2/contacts/${encodeURIComponent(e)}/erase`).set('X-API-Key', adminKey), 'POST', E, 200, {
        status: 'erased',
        contactDeleted: true,
        storedAnswersErased: 1,
      });
      conforms(await erase(`/api/v2/contacts/${encodeURIComponent(e)}/erase`, {}), 'POST', E, 200, { contactDeleted: false, storedAnswersErased: 0 });
      conforms(await erase(`/api/v2/contacts/${encodeURIComponent(e)}/erase`, { now: true }), 'POST', E, 400, { error: { code: 'INVALID_REQUEST' } });
      conforms(await t.http().post(`/api/v2/contacts/${encodeURIComponent(e)}/erase`), 'POST', E, 401, { error: { code: 'INVALID_API_KEY' } });
    });
  });

  describe('events', () => {
    const V = '/api/v2/events';

    it('GET /api/v2/events: a page (200), an empty one, 400, 410 CURSOR_EXPIRED', async () => {
      await post('/api/v2/contacts', { email: email('event'), listIds: [listA] }).expect(201);
      const first = await get(`${V}?limit=1`);
      conforms(first, 'GET', V, 200, { events: [{ type: expect.any(String) }], nextCursor: expect.any(String) });
      const rest = await get(`${V}?limit=1000&after=${first.body.nextCursor}`);
      conforms(rest, 'GET', V, 200);
      conforms(await get(`${V}?after=${rest.body.nextCursor}&types=contact.created,contact.updated`), 'GET', V, 200, { events: [] });
      conforms(await get(`${V}?limit=0`), 'GET', V, 400, { error: { code: 'INVALID_REQUEST' } });
      // As if the retention sweep had deleted the first event's transaction and more.
      await t.prisma.eventRetention.create({ data: { organizationId: orgId, prunedPosition: 1n, prunedSeq: 9_000_000_000n } });
      conforms(await get(`${V}?after=${first.body.nextCursor}`), 'GET', V, 410, { error: { code: 'CURSOR_EXPIRED' } });
    });
  });
});

describe('OpenAPI conformance of the webhook routes', () => {
  let docs: OpenApiValidator;
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: string;
  let writer: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = shared.t;
    docs = await servedDocs(t);
    const org = await createOrgWith(t.prisma, { name: 'Webhook conformance', lists: ['A'] });
    writer = org.apiKey;
    admin = (await createApiKey(t.prisma, org.id, { scope: 'admin' })).key;
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: unknown, key = admin) => {
    const req = t.http()[method](path).set('Authorization', `Bearer ${key}`);
    return body === undefined ? req : req.set('Content-Type', 'application/json').send(JSON.stringify(body));
  };
  function conforms(res: HttpAnswer, method: string, path: string, status: number, expected: Record<string, unknown> = {}) {
    expect({ status: res.status, problems: docs.problems(res, method, path) }).toEqual({ status, problems: [] });
    expect(res.body).toMatchObject(expected);
  }
  const W = '/api/v2/webhooks';
  const ONE = '/api/v2/webhooks/{id}';
  const ROTATE = '/api/v2/webhooks/{id}/rotate-secret';
  const LOG = '/api/v2/webhooks/{id}/deliveries';
  const unknownId = '00000000-0000-4000-8000-000000000000';

  it('POST, GET, PATCH, rotate-secret and DELETE: every answer and error as documented', async () => {
    const created = await call('post', W, { url: receiver.url, types: ['contact.created'], description: 'CRM' });
    conforms(created, 'POST', W, 201, { webhook: { url: receiver.url, enabled: true }, secret: expect.stringMatching(/^whsec_/) });
    const id = String(created.body.webhook.id);
    conforms(await call('post', W, { url: 'not a url' }), 'POST', W, 400, { error: { code: 'INVALID_REQUEST' } });
    conforms(await call('post', W, { url: receiver.url }, writer), 'POST', W, 403, { error: { code: 'INSUFFICIENT_SCOPE' } });
    conforms(await t.http().post(W).send({ url: receiver.url }), 'POST', W, 401, { error: { code: 'INVALID_API_KEY' } });

    conforms(await call('get', W), 'GET', W, 200, { webhooks: [{ id }] });
    conforms(await call('get', `${W}/${id}`), 'GET', ONE, 200, { webhook: { id } });
    conforms(await call('get', `${W}/${unknownId}`), 'GET', ONE, 404, { error: { code: 'WEBHOOK_NOT_FOUND' } });
    conforms(await call('patch', `${W}/${id}`, { types: ['contact.created', 'contact.updated'] }), 'PATCH', ONE, 200, { webhook: { types: ['contact.created', 'contact.updated'] } });
    conforms(await call('patch', `${W}/${id}`, {}), 'PATCH', ONE, 400, { error: { code: 'INVALID_REQUEST' } });
    conforms(await call('patch', `${W}/${unknownId}`, { enabled: false }), 'PATCH', ONE, 404, { error: { code: 'WEBHOOK_NOT_FOUND' } });
    conforms(await call('post', `${W}/${id}/rotate-secret`), 'POST', ROTATE, 200, { secret: expect.stringMatching(/^whsec_/) });
    conforms(await call('post', `${W}/${unknownId}/rotate-secret`), 'POST', ROTATE, 404, { error: { code: 'WEBHOOK_NOT_FOUND' } });

    conforms(await call('delete', `${W}/${id}`), 'DELETE', ONE, 200, { id, status: 'deleted' });
    conforms(await call('delete', `${W}/${id}`), 'DELETE', ONE, 404, { error: { code: 'WEBHOOK_NOT_FOUND' } });
  });

  it('the 21st webhook is 409 WEBHOOK_LIMIT_REACHED', async () => {
    const org = await createOrganization(t.prisma, 'Twenty hooks', 'admin');
    for (let i = 0; i < 20; i++) expect((await call('post', W, { url: `${receiver.url}/${i}` }, org.apiKey)).status).toBe(201);
    conforms(await call('post', W, { url: receiver.url }, org.apiKey), 'POST', W, 409, { error: { code: 'WEBHOOK_LIMIT_REACHED' } });
  });

  it('GET /api/v2/webhooks/{id}/deliveries: a page with an attempt (200), 400, 404', async () => {
    const id = String((await call('post', W, { url: receiver.url, types: ['contact.created'] })).body.webhook.id);
    const lists = await call('get', '/api/v2/lists', undefined, writer);
    await call('post', '/api/v2/contacts', { email: `hooked.${Date.now()}@example.com`, listIds: [lists.body.lists[0].id] }, writer).expect(201);
    let page = await call('get', `${W}/${id}/deliveries`);
    for (let tries = 0; tries < 100 && !(page.body.deliveries?.[0]?.attempts?.length > 0); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      page = await call('get', `${W}/${id}/deliveries`);
    }
    conforms(page, 'GET', LOG, 200, { deliveries: [{ type: 'contact.created', attempts: [expect.any(Object)] }] });
    conforms(await call('get', `${W}/${id}/deliveries?limit=0`), 'GET', LOG, 400, { error: { code: 'INVALID_REQUEST' } });
    conforms(await call('get', `${W}/${id}/deliveries?cursor=nope`), 'GET', LOG, 400, { error: { code: 'INVALID_REQUEST' } });
    conforms(await call('get', `${W}/${unknownId}/deliveries`), 'GET', LOG, 404, { error: { code: 'WEBHOOK_NOT_FOUND' } });
  });
});

describe('OpenAPI conformance of limits and failures', () => {
  // One app for the organization limit and the database gone, which drops its database and so runs last.
  describe('with ORG_RATE_LIMIT=1', () => {
    let docs: OpenApiValidator;
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ ORG_RATE_LIMIT: '1' });
      docs = await servedDocs(t);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('organization limit: 429 with Retry-After and the rate-limit headers', async () => {
      const org = await createOrganization(t.prisma);
      await t.http().get('/api/v2/lists').set('X-API-Key', org.apiKey).expect(200);
      const res = await t.http().post('/api/v2/contacts').set('X-API-Key', org.apiKey).set('Content-Type', 'application/json').send('{}');
      expect({ status: res.status, problems: docs.problems(res, 'POST', '/api/v2/contacts') }).toEqual({ status: 429, problems: [] });
      expect(res.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    });

    // docs/api.md#request-level-errors: a database that cannot serve is 503 SERVICE_UNAVAILABLE with Retry-After.
    it('database gone: 503 SERVICE_UNAVAILABLE without internals', async () => {
      const org = await createOrganization(t.prisma);
      await t.database.drop();
      const res = await t.http().get('/api/v2/lists').set('X-API-Key', org.apiKey);
      expect({ status: res.status, problems: docs.problems(res, 'GET', '/api/v2/lists') }).toEqual({ status: 503, problems: [] });
      expect(res.headers['retry-after']).toBe('1');
      expect(res.text).not.toMatch(/prisma|SELECT|at .*\.ts/i);
    });
  });

  it('per-IP limit: 429 with Retry-After', async () => {
    const t = await createTestApp({ IP_RATE_LIMIT: '1' });
    try {
      const docs = new OpenApiValidator(buildOpenApiDocument(t.app)); // the only request the IP may send is the one tested
      await t.http().get('/api/v2/fields');
      const res = await t.http().get('/api/v2/fields');
      expect({ status: res.status, problems: docs.problems(res, 'GET', '/api/v2/fields') }).toEqual({ status: 429, problems: [] });
    } finally {
      await t.close();
    }
  });
});
