import { bootApp, expectRequestError, expectSuccess, Org, sorted, uniqueEmail, useOrgWithList, UUID_RE } from './helpers';

/** docs/api.md#endpoints, GET /api/v2/contacts/{email} (reads show values only; invalid email 404; broken encoding 400). */
describe('GET /api/v2/contacts/{email}', () => {
  const ctx = useOrgWithList();

  it('answers 200 { request_id, contact: { id, email, listIds, fields, suppressed, createdAt, updatedAt } }', async () => {
    await ctx.org.field('score', 'number');
    await ctx.org.field('birthday', 'date');
    await ctx.org.field('vip', 'boolean');
    await ctx.org.field('colour', 'select', { options: ['red'] });
    await ctx.org.field('nickname', 'text');
    const l2 = await ctx.org.list('Two');
    const e = uniqueEmail();
    const id = expectSuccess(
      await ctx.org.postContact({
        email: e,
        listIds: [ctx.list, l2],
        fields: { firstName: 'Ada', lastName: null, score: 7, birthday: '1815-12-10', vip: true, colour: 'red' },
      }),
      'created',
      e,
    );
    const res = await ctx.org.getContact(e);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        request_id: res.headers['x-request-id'],
        contact: {
          id,
          email: e,
          listIds: expect.any(Array),
          fields: { firstName: 'Ada', score: 7, birthday: '1815-12-10', vip: true, colour: 'red' },
          suppressed: null,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      },
    });
    expect(res.headers['x-request-id']).toMatch(UUID_RE);
    expect(sorted(res.body.contact.listIds)).toEqual(sorted([ctx.list, l2]));
    const { createdAt, updatedAt } = res.body.contact;
    expect(Number.isNaN(Date.parse(createdAt))).toBe(false);
    expect(Number.isNaN(Date.parse(updatedAt))).toBe(false);
    expect(Date.parse(updatedAt)).toBeGreaterThanOrEqual(Date.parse(createdAt));
    expect(Math.abs(Date.parse(createdAt) - Date.now())).toBeLessThan(60_000);
  });

  it('the email is URL-decoded and normalized before lookup', async () => {
    const e = `ada+news.${Date.now()}@example.com`;
    const id = expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list] }), 'created', e);
    for (const path of [
      `/api/v2/contacts/${encodeURIComponent(e)}`,
      `/api/v2/contacts/${encodeURIComponent(` ${e.toUpperCase()} `)}`,
      `/api/v2/contacts/${e.replace('+', '%2B').replace('@', '%40').toUpperCase().replace('%2B', '%2b')}`,
    ]) {
      const res = await ctx.org.get(path);
      expect({ path, status: res.status, id: res.body.contact?.id }).toEqual({ path, status: 200, id });
      expect(res.body.contact.email).toBe(e);
    }
  });

  it('an email with a literal @ in the path is found as well', async () => {
    const e = uniqueEmail();
    const id = expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list] }), 'created', e);
    const res = await ctx.org.get(`/api/v2/contacts/${e}`);
    expect(res.status).toBe(200);
    expect(res.body.contact.id).toBe(id);
  });

  it('unknown contact → 404 CONTACT_NOT_FOUND', async () => {
    expectRequestError(await ctx.org.getContact(uniqueEmail()), 404, 'CONTACT_NOT_FOUND');
  });

  it.each([['not-an-email'], ['a@b'], ['a b@example.com'], ['jörg@example.com'], ['x'.repeat(300)], ['%00']])(
    'a value that is not a valid email (%s) → 404 CONTACT_NOT_FOUND',
    async (value) => {
      expectRequestError(await ctx.org.getContact(value), 404, 'CONTACT_NOT_FOUND');
    },
  );

  it.each([['%'], ['ada%40example.com%'], ['%zz@example.com'], ['ada%E0%A4%A@example.com'], ['%C3%28@example.com'], ['%FF%FE@example.com']])(
    'broken percent-encoding (%s) → 400 INVALID_REQUEST',
    async (raw) => {
      expectRequestError(await ctx.org.get(`/api/v2/contacts/${raw}`), 400, 'INVALID_REQUEST');
    },
  );

  it('fields show only values: cleared fields disappear', async () => {
    await ctx.org.field('score', 'number');
    const e = uniqueEmail();
    await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { firstName: 'A', city: 'B', score: 1 } });
    await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: null, score: null }, overwrite: true });
    expect((await ctx.org.read(e))?.fields).toEqual({ firstName: 'A' });
  });

  it('suppressed shows { reason }', async () => {
    const e = uniqueEmail();
    await ctx.org.postContact({ email: e, listIds: [ctx.list] });
    await ctx.org.suppress(e, 'complained');
    expect((await ctx.org.read(e))?.suppressed).toEqual({ reason: 'complained' });
  });

  it('updatedAt moves forward on an update, createdAt does not', async () => {
    const e = uniqueEmail();
    await ctx.org.postContact({ email: e, listIds: [ctx.list] });
    const before = await ctx.org.read(e);
    await new Promise((r) => setTimeout(r, 20));
    await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'X' }, overwrite: true });
    const after = await ctx.org.read(e);
    expect(after?.createdAt).toBe(before?.createdAt);
    expect(Date.parse(after?.updatedAt ?? '')).toBeGreaterThan(Date.parse(before?.updatedAt ?? ''));
  });

  it('a suppression without a contact is not a contact: GET → 404 CONTACT_NOT_FOUND', async () => {
    const e = uniqueEmail();
    await ctx.org.suppress(e, 'bounced');
    expectRequestError(await ctx.org.getContact(e), 404, 'CONTACT_NOT_FOUND');
  });

  it('a literal + in the path is part of the email, not a space', async () => {
    const e = `ada+tag${Date.now()}@example.com`;
    const id = expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list] }), 'created', e);
    const res = await ctx.org.get(`/api/v2/contacts/${e}`);
    expect({ status: res.status, id: res.body.contact?.id }).toEqual({ status: 200, id });
  });

  it('GET with an encoded U+0000 inside the email → 404 CONTACT_NOT_FOUND (an invalid email)', async () => {
    expectRequestError(await ctx.org.get('/api/v2/contacts/a%00b@example.com'), 404, 'CONTACT_NOT_FOUND');
  });

  it('GET with percent-encoded UTF-8 of a lone surrogate (invalid UTF-8) → 400 INVALID_REQUEST', async () => {
    expectRequestError(await ctx.org.get('/api/v2/contacts/a%ED%A0%80@example.com'), 400, 'INVALID_REQUEST');
  });
});

describe('organizations are isolated', () => {
  const app = bootApp();

  it('the same email in two organizations is two contacts; each sees only its own', async () => {
    const a = await Org.create(app.t, 'A');
    const b = await Org.create(app.t, 'B');
    const la = await a.list('A list');
    const lb = await b.list('B list');
    const e = uniqueEmail();
    const idA = expectSuccess(await a.postContact({ email: e, listIds: [la], fields: { city: 'A-town' } }), 'created', e);
    expectRequestError(await b.getContact(e), 404, 'CONTACT_NOT_FOUND');
    const idB = expectSuccess(await b.postContact({ email: e, listIds: [lb], fields: { city: 'B-town' } }), 'created', e);
    expect(idB).not.toBe(idA);
    expect(await a.read(e)).toMatchObject({ id: idA, listIds: [la], fields: { city: 'A-town' } });
    expect(await b.read(e)).toMatchObject({ id: idB, listIds: [lb], fields: { city: 'B-town' } });
  });

  it("another organization's list → INVALID_LIST and nothing is written in either organization", async () => {
    const a = await Org.create(app.t, 'A');
    const b = await Org.create(app.t, 'B');
    const lb = await b.list('B list');
    const e = uniqueEmail();
    const res = await a.postContact({ email: e, listIds: [lb] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_LIST');
    expect(res.body.invalidListIds).toEqual([lb]);
    expect(await a.read(e)).toBeNull();
    expect(await b.read(e)).toBeNull();
  });

  it("updating in one organization leaves the other's contact alone", async () => {
    const a = await Org.create(app.t, 'A');
    const b = await Org.create(app.t, 'B');
    const la = await a.list();
    const lb = await b.list();
    const e = uniqueEmail();
    await a.postContact({ email: e, listIds: [la], fields: { city: 'A' } });
    await b.postContact({ email: e, listIds: [lb], fields: { city: 'B' } });
    await a.postContact({ email: e, listIds: [la], fields: { city: 'A2' }, overwrite: true });
    expect((await b.read(e))?.fields).toEqual({ city: 'B' });
  });
});

describe('GET /api/v2/lists', () => {
  const app = bootApp();

  it("{ request_id, lists: [{ id, name, archived }] } with the caller's lists only", async () => {
    const org = await Org.create(app.t);
    const other = await Org.create(app.t, 'Other');
    const l1 = await org.list('News');
    const l2 = await org.list('Old', true);
    await other.list('Theirs');
    const res = await org.get('/api/v2/lists');
    expect(res.status).toBe(200);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(Object.keys(res.body).sort()).toEqual(['lists', 'request_id']);
    expect(sorted(res.body.lists.map((l: { id: string }) => l.id))).toEqual(sorted([l1, l2]));
    expect(res.body.lists).toEqual(
      expect.arrayContaining([
        { id: l1, name: 'News', archived: false },
        { id: l2, name: 'Old', archived: true },
      ]),
    );
  });

  it('an organization without lists gets an empty array', async () => {
    const org = await Org.create(app.t);
    const res = await org.get('/api/v2/lists');
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { request_id: res.headers['x-request-id'], lists: [] } });
  });
});

describe('GET /api/v2/fields', () => {
  const app = bootApp();
  const STANDARD = ['firstName', 'lastName', 'phone', 'company', 'jobTitle', 'city', 'country'];

  it('standard: the seven standard fields as { key, type: "text", maxLength: 255 }', async () => {
    const org = await Org.create(app.t);
    const res = await org.get('/api/v2/fields');
    expect(res.status).toBe(200);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(res.body.standard).toHaveLength(7);
    expect(sorted(res.body.standard.map((f: { key: string }) => f.key))).toEqual(sorted(STANDARD));
    for (const f of res.body.standard) expect(f).toEqual({ key: f.key, type: 'text', maxLength: 255 });
    expect(res.body.custom).toEqual([]);
  });

  it('custom: { key, type, required, defaultValue, options } for each of the caller\'s fields only', async () => {
    const org = await Org.create(app.t);
    const other = await Org.create(app.t, 'Other');
    await other.field('theirs', 'text');
    await org.field('plan', 'select', { options: ['free', 'pro'], defaultValue: 'free', required: true });
    await org.field('score', 'number', { defaultValue: 0 });
    await org.field('vip', 'boolean', { defaultValue: false });
    await org.field('birthday', 'date');
    await org.field('bio', 'text', { required: true });
    const res = await org.get('/api/v2/fields');
    expect(res.status).toBe(200);
    const byKey = Object.fromEntries(res.body.custom.map((f: { key: string }) => [f.key, f]));
    expect(sorted(Object.keys(byKey))).toEqual(['bio', 'birthday', 'plan', 'score', 'vip']);
    expect(byKey.plan).toEqual({ key: 'plan', type: 'select', required: true, defaultValue: 'free', options: ['free', 'pro'] });
    expect(byKey.score).toMatchObject({ key: 'score', type: 'number', required: false, defaultValue: 0 });
    expect(byKey.vip).toMatchObject({ key: 'vip', type: 'boolean', required: false, defaultValue: false });
    expect(byKey.birthday).toMatchObject({ key: 'birthday', type: 'date', required: false, defaultValue: null });
    expect(byKey.bio).toMatchObject({ key: 'bio', type: 'text', required: true, defaultValue: null });
    for (const f of res.body.custom) {
      expect(Object.keys(f).sort()).toEqual(['defaultValue', 'key', 'options', 'required', 'type']);
    }
  });
});
