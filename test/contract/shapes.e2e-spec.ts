import { gzipSync } from 'node:zlib';
import { bootApp, expectRequestError, expectSuccess, Org, rawPost, sorted, uniqueEmail } from './helpers';

/** Contract 12 fine points on the two POST endpoints: media type, encoding, and odd corners of shape. */
describe('request body fine points', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeEach(async () => {
    org = await Org.create(app.t);
    list = await org.list('Main');
  });

  it.each([['application/json'], ['application/json; charset=utf-8'], ['APPLICATION/JSON'], ['Application/Json; Charset=UTF-8']])(
    'Content-Type %s is accepted (media type matched case-insensitively)',
    async (type) => {
      const e = uniqueEmail();
      expectSuccess(await org.postRaw('/api/v2/contacts', JSON.stringify({ email: e, listIds: [list] }), type), 'created', e);
    },
  );

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['multipart/form-data; boundary=x'], ['application/jsonx'], ['application/xml']])(
    'Content-Type %s → 400 INVALID_REQUEST on both endpoints, nothing written',
    async (type) => {
      const e = uniqueEmail();
      expectRequestError(await org.postRaw('/api/v2/contacts', JSON.stringify({ email: e, listIds: [list] }), type), 400, 'INVALID_REQUEST');
      expectRequestError(
        await org.postRaw('/api/v2/contacts/batch', JSON.stringify({ contacts: [{ email: e, listIds: [list] }] }), type),
        400,
        'INVALID_REQUEST',
      );
      expect(await org.read(e)).toBeNull();
    },
  );

  it('a POST without Content-Type → 400 INVALID_REQUEST', async () => {
    const res = await rawPost(app.t, '/api/v2/contacts', Buffer.from(JSON.stringify({ email: uniqueEmail(), listIds: [list] })), {
      Authorization: `Bearer ${org.key}`,
    });
    expectRequestError(res, 400, 'INVALID_REQUEST');
  });

  it('a gzip-encoded body is accepted', async () => {
    const e = uniqueEmail();
    const res = await org.postBytes('/api/v2/contacts/batch', gzipSync(Buffer.from(JSON.stringify({ contacts: [{ email: e, listIds: [list] }] }))), {
      'Content-Encoding': 'gzip',
    });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ status: 'created', email: e });
  });

  it('an unsupported Content-Encoding → 400 INVALID_REQUEST', async () => {
    const res = await org.postRaw('/api/v2/contacts', JSON.stringify({ email: uniqueEmail(), listIds: [list] })).set('Content-Encoding', 'compress');
    expectRequestError(res, 400, 'INVALID_REQUEST');
  });

  it('a body that is not UTF-8 → 400 INVALID_REQUEST', async () => {
    const latin1 = Buffer.from(`{"email":"${uniqueEmail()}","listIds":["${list}"],"fields":{"city":"Z\u00fcrich"}}`, 'latin1');
    expectRequestError(await org.postBytes('/api/v2/contacts', latin1), 400, 'INVALID_REQUEST');
    // control: the same bytes in UTF-8 are accepted
    const utf8 = Buffer.from(latin1.toString('latin1'), 'utf8');
    expect((await org.postBytes('/api/v2/contacts', utf8)).status).toBe(201);
  });
});

describe('more contract corners', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeEach(async () => {
    org = await Org.create(app.t);
    list = await org.list('Main');
  });

  it('addedListIds holds each new list once even when repeated in the input', async () => {
    const l2 = await org.list('Two');
    const e = uniqueEmail();
    await org.postContact({ email: e, listIds: [list] });
    const res = await org.postContact({ email: e, listIds: [l2, list, l2], overwrite: true });
    expectSuccess(res, 'updated', e, { changedFields: [], addedListIds: [l2] });
  });

  it('a suppression without a contact is not a contact: GET → 404 CONTACT_NOT_FOUND', async () => {
    const e = uniqueEmail();
    await org.suppress(e, 'bounced');
    expectRequestError(await org.getContact(e), 404, 'CONTACT_NOT_FOUND');
  });

  it('a literal + in the path is part of the email, not a space', async () => {
    const e = `ada+tag${Date.now()}@example.com`;
    const id = expectSuccess(await org.postContact({ email: e, listIds: [list] }), 'created', e);
    const res = await org.get(`/api/v2/contacts/${e}`);
    expect({ status: res.status, id: res.body.contact?.id }).toEqual({ status: 200, id });
  });

  it('GET with an encoded U+0000 inside the email → 404 CONTACT_NOT_FOUND (an invalid email)', async () => {
    expectRequestError(await org.get('/api/v2/contacts/a%00b@example.com'), 404, 'CONTACT_NOT_FOUND');
  });

  it('GET with percent-encoded UTF-8 of a lone surrogate (invalid UTF-8) → 400 INVALID_REQUEST', async () => {
    expectRequestError(await org.get('/api/v2/contacts/a%ED%A0%80@example.com'), 400, 'INVALID_REQUEST');
  });

  it('a key revoked after use is refused at once', async () => {
    const key = await org.newKey();
    expect((await app.t.http().get('/api/v2/lists').set('X-API-Key', key)).status).toBe(200);
    // revoke every key of the organization (the fixture gives no id for the new one)
    await app.t.prisma.apiKey.updateMany({ where: { organizationId: org.id }, data: { revokedAt: new Date() } });
    const res = await app.t.http().get('/api/v2/lists').set('X-API-Key', key);
    expectRequestError(res, 401, 'INVALID_API_KEY');
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('a key that expires after use is refused once expired', async () => {
    const key = await org.newKey({ expiresAt: new Date(Date.now() + 1500) });
    expect((await app.t.http().get('/api/v2/lists').set('Authorization', `Bearer ${key}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    expectRequestError(await app.t.http().get('/api/v2/lists').set('Authorization', `Bearer ${key}`), 401, 'INVALID_API_KEY');
  });

  it('the update default rule also applies inside a batch, and a second run is unchanged', async () => {
    const a = uniqueEmail();
    const b = uniqueEmail();
    await org.postContact({ email: a, listIds: [list] });
    await org.postContact({ email: b, listIds: [list], fields: { city: 'X' } });
    await org.field('plan', 'select', { options: ['free', 'pro'], required: true, defaultValue: 'free' });
    const rows = [
      { email: a, listIds: [list], overwrite: true },
      { email: b, listIds: [list], fields: { plan: 'pro' }, overwrite: true },
    ];
    const first = await org.batch(rows);
    expect(first.body.results).toEqual([
      { index: 0, email: a, status: 'updated', id: expect.any(String), changedFields: ['plan'], addedListIds: [] },
      { index: 1, email: b, status: 'updated', id: expect.any(String), changedFields: ['plan'], addedListIds: [] },
    ]);
    const second = await org.batch(rows);
    expect(second.body.results.map((r: { status: string }) => r.status)).toEqual(['unchanged', 'unchanged']);
    expect((await org.read(a))?.fields).toEqual({ plan: 'free' });
    expect((await org.read(b))?.fields).toEqual({ plan: 'pro', city: 'X' });
  });

  it('clearing a custom field and setting a standard one report both in changedFields, sorted', async () => {
    await org.field('zed', 'text');
    await org.field('alpha', 'text');
    const e = uniqueEmail();
    await org.postContact({ email: e, listIds: [list], fields: { zed: 'z', alpha: 'a' } });
    const res = await org.postContact({ email: e, listIds: [list], fields: { alpha: null, zed: null, city: 'C' }, overwrite: true });
    expect(res.status).toBe(200);
    expect(res.body.changedFields).toEqual(sorted(['alpha', 'zed', 'city']));
    expect((await org.read(e))?.fields).toEqual({ city: 'C' });
  });

  it('an update of a contact that exists only with another case of the email updates that contact', async () => {
    const e = uniqueEmail();
    const id = expectSuccess(await org.postContact({ email: e.toUpperCase(), listIds: [list] }), 'created', e);
    const res = await org.postContact({ email: ` ${e} `, listIds: [list], fields: { city: 'X' }, overwrite: true });
    expect(expectSuccess(res, 'updated', e, { changedFields: ['city'], addedListIds: [] })).toBe(id);
  });

  it('a list archived after the contact joined it is INVALID_LIST on a later update, and nothing changes', async () => {
    const e = uniqueEmail();
    await org.postContact({ email: e, listIds: [list], fields: { city: 'A' } });
    await app.t.prisma.list.update({ where: { id: list }, data: { archived: true } });
    const before = await org.read(e);
    const res = await org.postContact({ email: e, listIds: [list], fields: { city: 'B' }, overwrite: true });
    expect({ status: res.status, code: res.body.code, invalidListIds: res.body.invalidListIds }).toEqual({
      status: 400,
      code: 'INVALID_LIST',
      invalidListIds: [list],
    });
    expect(await org.read(e)).toEqual(before);
  });
});
