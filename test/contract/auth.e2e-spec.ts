import type { Response } from 'supertest';
import { bootApp, expectRequestError, Org, uniqueEmail } from './helpers';

/** docs/api.md#authentication on the contacts endpoints and reads; routing before authentication (#request-level-errors, 404 NOT_FOUND). */
describe('authentication on the contacts endpoints and reads', () => {
  const app = bootApp();

  type Call = [string, 'get' | 'post', (o: { email: string; list: string }) => string, (o: { email: string; list: string }) => unknown];
  const calls: Call[] = [
    ['POST /api/v2/contacts', 'post', () => '/api/v2/contacts', (o) => ({ email: o.email, listIds: [o.list] })],
    ['POST /api/v2/contacts/batch', 'post', () => '/api/v2/contacts/batch', (o) => ({ contacts: [{ email: o.email, listIds: [o.list] }] })],
    ['POST /api/v2/contacts?dryRun=true', 'post', () => '/api/v2/contacts?dryRun=true', (o) => ({ email: o.email, listIds: [o.list] })],
    ['GET /api/v2/contacts/{email}', 'get', (o) => `/api/v2/contacts/${encodeURIComponent(o.email)}`, () => undefined],
    ['GET /api/v2/lists', 'get', () => '/api/v2/lists', () => undefined],
    ['GET /api/v2/fields', 'get', () => '/api/v2/fields', () => undefined],
  ];

  function send(call: Call, o: { email: string; list: string }, headers: Record<string, string>, pathSuffix = '') {
    const [, method, path, body] = call;
    const p = path(o);
    const url = pathSuffix ? `${p}${p.includes('?') ? '&' : '?'}${pathSuffix}` : p;
    let req = method === 'get' ? app.t.http().get(url) : app.t.http().post(url).set('Content-Type', 'application/json');
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    return method === 'post' ? req.send(JSON.stringify(body(o))) : req;
  }

  function expect401(res: Response) {
    expectRequestError(res, 401, 'INVALID_API_KEY');
    expect(res.headers['www-authenticate']).toBe('Bearer');
  }

  async function setup() {
    const org = await Org.create(app.t);
    const list = await org.list();
    return { org, o: { email: uniqueEmail(), list } };
  }

  describe.each(calls)('%s', (...call) => {
    it('missing, unknown, expired and revoked keys → 401 INVALID_API_KEY, WWW-Authenticate: Bearer, one message', async () => {
      const { org, o } = await setup();
      const expired = await org.newKey({ expiresAt: new Date(Date.now() - 1000) });
      const revoked = await org.newKey({ revokedAt: new Date(Date.now() - 1000) });
      const unknown = `${org.key.slice(0, -4)}${org.key.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
      const messages: string[] = [];
      const variants: Array<Record<string, string>> = [
        {},
        { Authorization: `Bearer ${unknown}` },
        { Authorization: 'Bearer ' },
        { Authorization: 'Bearer not-a-key-at-all' },
        { Authorization: `Basic ${Buffer.from(`x:${org.key}`).toString('base64')}` },
        { 'X-API-Key': unknown },
        { Authorization: `Bearer ${expired}` },
        { 'X-API-Key': expired },
        { Authorization: `Bearer ${revoked}` },
        { 'X-API-Key': revoked },
      ];
      for (const headers of variants) {
        const res = await send(call, o, headers);
        expect401(res);
        messages.push(res.body.error.message);
      }
      expect(new Set(messages).size).toBe(1);
      expect(await org.read(o.email)).toBeNull();
    });

    it('accepts the key as Authorization: Bearer and as X-API-Key (and both when equal)', async () => {
      const { org, o } = await setup();
      const variants: Array<Record<string, string>> = [
        { Authorization: `Bearer ${org.key}` },
        { 'X-API-Key': org.key },
        { Authorization: `Bearer ${org.key}`, 'X-API-Key': org.key },
      ];
      for (const headers of variants) {
        const res = await send(call, { ...o, email: uniqueEmail() }, headers);
        expect(res.status).not.toBe(401);
        expect(res.status).toBeLessThan(500);
      }
    });

    it('a key with a future expiry is accepted', async () => {
      const { org, o } = await setup();
      const key = await org.newKey({ expiresAt: new Date(Date.now() + 3_600_000) });
      const res = await send(call, o, { Authorization: `Bearer ${key}` });
      expect(res.status).not.toBe(401);
    });

    it('Bearer and X-API-Key that differ → 401, even when both are valid keys', async () => {
      const { org, o } = await setup();
      const second = await org.newKey();
      const other = await Org.create(app.t, 'Other');
      for (const headers of [
        { Authorization: `Bearer ${org.key}`, 'X-API-Key': second },
        { Authorization: `Bearer ${org.key}`, 'X-API-Key': other.key },
        { Authorization: `Bearer ${org.key}`, 'X-API-Key': 'garbage' },
        { Authorization: 'Bearer garbage', 'X-API-Key': org.key },
      ]) {
        expect401(await send(call, o, headers));
      }
      expect(await org.read(o.email)).toBeNull();
    });

    it('a key in the query string is not accepted', async () => {
      const { org, o } = await setup();
      for (const q of ['api_key', 'apiKey', 'apikey', 'key', 'access_token', 'token', 'x-api-key']) {
        expect401(await send(call, o, {}, `${q}=${encodeURIComponent(org.key)}`));
      }
    });
  });

  it('a revoked key stays refused even with a future expiry', async () => {
    const org = await Org.create(app.t);
    const key = await org.newKey({ revokedAt: new Date(), expiresAt: new Date(Date.now() + 3_600_000) });
    expect401(await app.t.http().get('/api/v2/lists').set('Authorization', `Bearer ${key}`));
  });

  it('an unauthenticated POST is refused before its body is read (malformed JSON → 401, not 400)', async () => {
    expect401(await app.t.http().post('/api/v2/contacts').set('Content-Type', 'application/json').send('{not json'));
    expect401(await app.t.http().post('/api/v2/contacts/batch').set('Content-Type', 'application/json').send('{"contacts": 5}'));
  });

  it('an unauthenticated batch of 51 rows → 401, not BATCH_LIMIT_EXCEEDED', async () => {
    const contacts = Array.from({ length: 51 }, () => ({}));
    expect401(await app.t.http().post('/api/v2/contacts/batch').set('Content-Type', 'application/json').send(JSON.stringify({ contacts })));
  });

  it("a key sees only its own organization's data", async () => {
    const a = await Org.create(app.t, 'A');
    const b = await Org.create(app.t, 'B');
    const la = await a.list('A-only');
    const e = uniqueEmail();
    await a.postContact({ email: e, listIds: [la] });
    const lists = await b.get('/api/v2/lists');
    expect(lists.body.lists).toEqual([]);
    expect((await b.getContact(e)).status).toBe(404);
  });

  it('a key revoked after use is refused at once', async () => {
    const org = await Org.create(app.t);
    const key = await org.newKey();
    expect((await app.t.http().get('/api/v2/lists').set('X-API-Key', key)).status).toBe(200);
    // revoke every key of the organization (the fixture gives no id for the new one)
    await app.t.prisma.apiKey.updateMany({ where: { organizationId: org.id }, data: { revokedAt: new Date() } });
    const res = await app.t.http().get('/api/v2/lists').set('X-API-Key', key);
    expectRequestError(res, 401, 'INVALID_API_KEY');
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  // A key that expires after use: test/contract/key-expiry.e2e-spec.ts (timed, so it runs alone).
});

describe('routing before authentication', () => {
  const app = bootApp();

  const routes: Array<[string, string]> = [
    ['get', '/api/v2/nope'],
    ['post', '/api/v2/nope'],
    ['put', '/api/v2/contacts'], // GET /contacts lists them (docs/api.md, "Listing contacts")
    ['delete', '/api/v2/contacts'],
    ['patch', '/api/v2/contacts'],
    ['put', '/api/v2/contacts/batch'],
    ['put', '/api/v2/contacts/ada@example.com'], // GET and DELETE /contacts/{email} exist
    ['put', '/api/v2/lists/some-list-id'], // POST /lists and PATCH /lists/{id} exist (docs/api.md, "Lists")
    ['delete', '/api/v2/lists'],
    ['patch', '/api/v2/fields'], // POST /fields and PATCH /fields/{key} exist
    ['put', '/api/v2/fields'],
    ['get', '/api/v1/contacts'],
    ['post', '/api/v1/contacts'],
    ['post', '/api/v2/contacts/batch/extra'],
    ['get', '/api/v2'],
  ];

  type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
  const call = (method: string, path: string) => app.t.http()[method as Method](path);

  it.each(routes)('%s %s → 404 NOT_FOUND without a key', async (method, path) => {
    const res = await call(method, path);
    expectRequestError(res, 404, 'NOT_FOUND');
  });

  it.each(routes)('%s %s → 404 NOT_FOUND with a valid key', async (method, path) => {
    const org = await Org.create(app.t);
    const res = await call(method, path).set('Authorization', `Bearer ${org.key}`);
    expectRequestError(res, 404, 'NOT_FOUND');
  });

  it('404 NOT_FOUND with an invalid key as well', async () => {
    expectRequestError(await app.t.http().put('/api/v2/contacts').set('Authorization', 'Bearer nope'), 404, 'NOT_FOUND');
  });
});
