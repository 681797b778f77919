import { bootApp, expectFailure, expectRequestError, expectSuccess, Org, uniqueEmail } from './helpers';

/**
 * Contract 13 "Lists and custom fields", 15 (admin scope), 16 (PATCH rules), from the outside:
 * everything through HTTP; only the organization and its keys come from fixtures.
 */

type Body = Record<string, unknown>;

/** An organization with a key of each scope this file needs. */
async function adminOrg(t: Parameters<typeof Org.create>[0]) {
  const org = await Org.create(t);
  const admin = await org.newKey({ scope: 'admin' });
  const call = (method: 'post' | 'patch' | 'get', path: string, body?: Body | string, key = admin) => {
    let req = t.http()[method](path).set('Authorization', `Bearer ${key}`);
    if (body !== undefined) req = req.set('Content-Type', 'application/json').send(typeof body === 'string' ? body : JSON.stringify(body));
    return req;
  };
  return { org, admin, call };
}

describe('POST /api/v2/lists and PATCH /api/v2/lists/{id}', () => {
  const app = bootApp();

  it('creates a list: 201 { request_id, list: { id, name, archived: false } }, shown by GET /lists', async () => {
    const { call } = await adminOrg(app.t);
    const res = await call('post', '/api/v2/lists', { name: 'Newsletter' });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 201,
      body: { request_id: res.headers['x-request-id'], list: { id: expect.any(String), name: 'Newsletter', archived: false } },
    });
    const lists = await call('get', '/api/v2/lists');
    expect(lists.body.lists).toEqual([res.body.list]);
  });

  it('accepts names of 1 and 255 code points (astral characters count once) and refuses 0, 256, blank and non-strings', async () => {
    const { call } = await adminOrg(app.t);
    for (const name of ['x', 'a'.repeat(255), '😀'.repeat(255), ' padded ']) {
      const res = await call('post', '/api/v2/lists', { name });
      expect(res.status).toBe(201);
      expect(res.body.list.name).toBe(name);
    }
    for (const body of [{ name: '' }, { name: 'a'.repeat(256) }, { name: '😀'.repeat(256) }, { name: '   ' }, { name: 5 }, { name: null }, {}, { name: 'a\u0000b' }]) {
      expectRequestError(await call('post', '/api/v2/lists', body), 400, 'INVALID_REQUEST');
    }
    expectRequestError(await call('post', '/api/v2/lists', { name: 'ok', colour: 'red' }), 400, 'INVALID_REQUEST');
    expectRequestError(await call('post', '/api/v2/lists', '[]'), 400, 'INVALID_REQUEST');
    expectRequestError(await call('post', '/api/v2/lists', '{"name":'), 400, 'INVALID_REQUEST');
    expect((await call('get', '/api/v2/lists')).body.lists).toHaveLength(4);
  });

  it('renames, archives and unarchives; archiving keeps memberships and refuses new ones (rule 4)', async () => {
    const { org, call } = await adminOrg(app.t);
    const { id } = (await call('post', '/api/v2/lists', { name: 'Old name' })).body.list;
    const email = uniqueEmail();
    expectSuccess(await org.postContact({ email, listIds: [id] }), 'created', email);

    const renamed = await call('patch', `/api/v2/lists/${id}`, { name: 'New name' });
    expect({ status: renamed.status, body: renamed.body }).toEqual({
      status: 200,
      body: { request_id: renamed.headers['x-request-id'], list: { id, name: 'New name', archived: false } },
    });

    const archived = await call('patch', `/api/v2/lists/${id}`, { archived: true });
    expect(archived.body.list).toEqual({ id, name: 'New name', archived: true });
    expect((await org.read(email))?.listIds).toEqual([id]);
    const other = uniqueEmail();
    expectFailure(await org.postContact({ email: other, listIds: [id] }), 'INVALID_LIST', other, { invalidListIds: [id] });

    const both = await call('patch', `/api/v2/lists/${id}`, { archived: false, name: 'Back' });
    expect(both.body.list).toEqual({ id, name: 'Back', archived: false });
    expectSuccess(await org.postContact({ email: other, listIds: [id] }), 'created', other);
  });

  it('PATCH: no known key, any unknown key, or a bad value is 400 and changes nothing', async () => {
    const { call } = await adminOrg(app.t);
    const { id } = (await call('post', '/api/v2/lists', { name: 'Keep' })).body.list;
    for (const body of [{}, { colour: 'red' }, { name: 'x', colour: 'red' }, { archived: 'yes' }, { archived: null }, { name: '' }, { name: 'a'.repeat(256) }]) {
      expectRequestError(await call('patch', `/api/v2/lists/${id}`, body), 400, 'INVALID_REQUEST');
    }
    expectRequestError(await call('patch', `/api/v2/lists/${id}`, 'null'), 400, 'INVALID_REQUEST');
    expect((await call('get', '/api/v2/lists')).body.lists).toEqual([{ id, name: 'Keep', archived: false }]);
  });

  it('unknown or another organization’s list: 404 LIST_NOT_FOUND, and the other list is untouched', async () => {
    const mine = await adminOrg(app.t);
    const theirs = await adminOrg(app.t);
    const { id } = (await theirs.call('post', '/api/v2/lists', { name: 'Theirs' })).body.list;
    expectRequestError(await mine.call('patch', `/api/v2/lists/${id}`, { archived: true }), 404, 'LIST_NOT_FOUND');
    expectRequestError(await mine.call('patch', '/api/v2/lists/00000000-0000-4000-8000-000000000000', { name: 'x' }), 404, 'LIST_NOT_FOUND');
    expectRequestError(await mine.call('patch', '/api/v2/lists/not-an-id', { name: 'x' }), 404, 'LIST_NOT_FOUND');
    expect((await theirs.call('get', '/api/v2/lists')).body.lists).toEqual([{ id, name: 'Theirs', archived: false }]);
  });

  it('needs the admin scope: contacts:write and contacts:read keys get 403 INSUFFICIENT_SCOPE', async () => {
    const { org, call } = await adminOrg(app.t);
    const { id } = (await call('post', '/api/v2/lists', { name: 'L' })).body.list;
    for (const scope of ['contacts:read', 'contacts:write'] as const) {
      const key = await org.newKey({ scope });
      expectRequestError(await call('post', '/api/v2/lists', { name: 'No' }, key), 403, 'INSUFFICIENT_SCOPE');
      expectRequestError(await call('patch', `/api/v2/lists/${id}`, { name: 'No' }, key), 403, 'INSUFFICIENT_SCOPE');
    }
    expect((await call('get', '/api/v2/lists')).body.lists).toEqual([{ id, name: 'L', archived: false }]);
  });
});

describe('POST /api/v2/fields and PATCH /api/v2/fields/{key}', () => {
  const app = bootApp();

  it('creates a field: 201 { request_id, field } as GET /fields shows it', async () => {
    const { call } = await adminOrg(app.t);
    const res = await call('post', '/api/v2/fields', { key: 'plan', type: 'select', options: ['free', 'pro'], defaultValue: 'free', required: true });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 201,
      body: {
        request_id: res.headers['x-request-id'],
        field: { key: 'plan', type: 'select', required: true, defaultValue: 'free', options: ['free', 'pro'] },
      },
    });
    const text = await call('post', '/api/v2/fields', { key: 'note', type: 'text' });
    expect(text.body.field).toEqual({ key: 'note', type: 'text', required: false, defaultValue: null, options: null });
    const fields = await call('get', '/api/v2/fields');
    expect(fields.body.custom).toEqual([res.body.field, text.body.field]);
  });

  it('a new field takes part in the contact rules at once (default on create, type checks)', async () => {
    const { org, call } = await adminOrg(app.t);
    const list = (await call('post', '/api/v2/lists', { name: 'Main' })).body.list.id;
    await call('post', '/api/v2/fields', { key: 'score', type: 'number', defaultValue: 10 }).expect(201);
    const email = uniqueEmail();
    expectSuccess(await org.postContact({ email, listIds: [list] }), 'created', email);
    expect((await org.read(email))?.fields).toEqual({ score: 10 });
    const bad = uniqueEmail();
    expectFailure(await org.postContact({ email: bad, listIds: [list], fields: { score: '10' } }), 'FIELD_TYPE_MISMATCH', bad);
  });

  it.each<[string, Body]>([
    ['a key not matching the pattern', { key: '1abc', type: 'text' }],
    ['a key of 65 characters', { key: `a${'b'.repeat(64)}`, type: 'text' }],
    ['no key', { type: 'text' }],
    ['an unknown type', { key: 'x', type: 'string' }],
    ['no type', { key: 'x' }],
    ['required not a boolean', { key: 'x', type: 'text', required: 'yes' }],
    ['options on a text field', { key: 'x', type: 'text', options: ['a'] }],
    ['a select field without options', { key: 'x', type: 'select' }],
    ['a select field with no options', { key: 'x', type: 'select', options: [] }],
    ['an empty option', { key: 'x', type: 'select', options: ['a', ''] }],
    ['a repeated option', { key: 'x', type: 'select', options: ['a', 'a'] }],
    ['options not strings', { key: 'x', type: 'select', options: ['a', 1] }],
    ['a default not among the options', { key: 'x', type: 'select', options: ['a'], defaultValue: 'b' }],
    ['a numeric string default for a number', { key: 'x', type: 'number', defaultValue: '42' }],
    ['a default that is not a real date', { key: 'x', type: 'date', defaultValue: '2023-02-29' }],
    ['a text default over 2,000 characters', { key: 'x', type: 'text', defaultValue: 'x'.repeat(2001) }],
    ['a boolean default as a string', { key: 'x', type: 'boolean', defaultValue: 'true' }],
    ['an unknown key', { key: 'x', type: 'text', label: 'X' }],
  ])('refuses %s: 400 INVALID_REQUEST, nothing created', async (_name, body) => {
    const { call } = await adminOrg(app.t);
    expectRequestError(await call('post', '/api/v2/fields', body), 400, 'INVALID_REQUEST');
    expect((await call('get', '/api/v2/fields')).body.custom).toEqual([]);
  });

  it('a key in use or a standard field name: 409 FIELD_KEY_TAKEN (keys are case-sensitive)', async () => {
    const { call } = await adminOrg(app.t);
    await call('post', '/api/v2/fields', { key: 'plan', type: 'text' }).expect(201);
    expectRequestError(await call('post', '/api/v2/fields', { key: 'plan', type: 'number' }), 409, 'FIELD_KEY_TAKEN');
    expectRequestError(await call('post', '/api/v2/fields', { key: 'firstName', type: 'text' }), 409, 'FIELD_KEY_TAKEN');
    await call('post', '/api/v2/fields', { key: 'Plan', type: 'text' }).expect(201);
    await call('post', '/api/v2/fields', { key: 'firstname', type: 'text' }).expect(201);
    // Another organization may use the same key.
    const other = await adminOrg(app.t);
    await other.call('post', '/api/v2/fields', { key: 'plan', type: 'text' }).expect(201);
  });

  it('two concurrent creates of one key: one 201 and one 409, never a 500', async () => {
    const { call } = await adminOrg(app.t);
    for (let round = 0; round < 5; round++) {
      const key = `race${round}`;
      const answers = await Promise.all([0, 1, 2].map((i) => call('post', '/api/v2/fields', { key, type: i === 0 ? 'text' : 'number' })));
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    }
    expect((await call('get', '/api/v2/fields')).body.custom).toHaveLength(5);
  });

  it('PATCH changes required and the default; the type never changes', async () => {
    const { call } = await adminOrg(app.t);
    await call('post', '/api/v2/fields', { key: 'score', type: 'number' }).expect(201);
    const res = await call('patch', '/api/v2/fields/score', { required: true, defaultValue: 5 });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { request_id: res.headers['x-request-id'], field: { key: 'score', type: 'number', required: true, defaultValue: 5, options: null } },
    });
    const cleared = await call('patch', '/api/v2/fields/score', { defaultValue: null });
    expect(cleared.body.field).toEqual({ key: 'score', type: 'number', required: true, defaultValue: null, options: null });
    expectRequestError(await call('patch', '/api/v2/fields/score', { type: 'text' }), 400, 'INVALID_REQUEST');
    expectRequestError(await call('patch', '/api/v2/fields/score', { defaultValue: 'five' }), 400, 'INVALID_REQUEST');
    expectRequestError(await call('patch', '/api/v2/fields/score', { required: 'no' }), 400, 'INVALID_REQUEST');
    expectRequestError(await call('patch', '/api/v2/fields/score', { options: ['a'] }), 400, 'INVALID_REQUEST');
    expectRequestError(await call('patch', '/api/v2/fields/score', {}), 400, 'INVALID_REQUEST');
    expect((await call('get', '/api/v2/fields')).body.custom).toEqual([cleared.body.field]);
  });

  it('PATCH options may only grow; a new default must fit the grown options', async () => {
    const { call } = await adminOrg(app.t);
    await call('post', '/api/v2/fields', { key: 'plan', type: 'select', options: ['free', 'pro'], defaultValue: 'free' }).expect(201);
    expectRequestError(await call('patch', '/api/v2/fields/plan', { options: ['free'] }), 400, 'INVALID_REQUEST');
    expectRequestError(await call('patch', '/api/v2/fields/plan', { options: ['pro', 'team'] }), 400, 'INVALID_REQUEST');
    expectRequestError(await call('patch', '/api/v2/fields/plan', { defaultValue: 'team' }), 400, 'INVALID_REQUEST');
    const grown = await call('patch', '/api/v2/fields/plan', { options: ['free', 'pro', 'team'], defaultValue: 'team' });
    expect(grown.status).toBe(200);
    expect(grown.body.field).toEqual({ key: 'plan', type: 'select', required: false, defaultValue: 'team', options: ['free', 'pro', 'team'] });
    expect((await call('get', '/api/v2/fields')).body.custom).toEqual([grown.body.field]);
  });

  it('making a field required rewrites no contact; the rule meets each contact on its next overwrite (docs/decisions.md)', async () => {
    const { org, call } = await adminOrg(app.t);
    const list = (await call('post', '/api/v2/lists', { name: 'Main' })).body.list.id;
    await call('post', '/api/v2/fields', { key: 'tier', type: 'text' }).expect(201);
    const email = uniqueEmail();
    expectSuccess(await org.postContact({ email, listIds: [list] }), 'created', email);
    const before = await org.read(email);
    await call('patch', '/api/v2/fields/tier', { required: true }).expect(200);
    expect(await org.read(email)).toEqual(before); // untouched, still without a value
    // Its next overwrite meets rule 10 (no value, no default) ...
    expectFailure(await org.postContact({ email, listIds: [list], fields: { firstName: 'Ada' }, overwrite: true }), 'REQUIRED_FIELD_MISSING', email);
    // ... until the field has a default, which the overwrite then stores.
    await call('patch', '/api/v2/fields/tier', { defaultValue: 'basic' }).expect(200);
    expectSuccess(await org.postContact({ email, listIds: [list], fields: { firstName: 'Ada' }, overwrite: true }), 'updated', email, {
      changedFields: ['firstName', 'tier'],
      addedListIds: [],
    });
    expect((await org.read(email))?.fields).toEqual({ firstName: 'Ada', tier: 'basic' });
  });

  it('PATCH of an unknown or another organization’s key: 404 FIELD_NOT_FOUND (keys are case-sensitive)', async () => {
    const mine = await adminOrg(app.t);
    const theirs = await adminOrg(app.t);
    await theirs.call('post', '/api/v2/fields', { key: 'secret', type: 'text' }).expect(201);
    await mine.call('post', '/api/v2/fields', { key: 'plan', type: 'text' }).expect(201);
    expectRequestError(await mine.call('patch', '/api/v2/fields/secret', { required: true }), 404, 'FIELD_NOT_FOUND');
    expectRequestError(await mine.call('patch', '/api/v2/fields/Plan', { required: true }), 404, 'FIELD_NOT_FOUND');
    expectRequestError(await mine.call('patch', '/api/v2/fields/firstName', { required: true }), 404, 'FIELD_NOT_FOUND');
    expect((await theirs.call('get', '/api/v2/fields')).body.custom[0].required).toBe(false);
  });

  it('PATCH of a key that no field can have (U+0000, a space, too long) is 404 FIELD_NOT_FOUND, never 500', async () => {
    const { call } = await adminOrg(app.t);
    for (const key of ['a%00', 'plan%00', 'a%20b', 'a'.repeat(65)]) {
      expectRequestError(await call('patch', `/api/v2/fields/${key}`, { required: true }), 404, 'FIELD_NOT_FOUND');
    }
  });

  it('needs the admin scope', async () => {
    const { org, call } = await adminOrg(app.t);
    await call('post', '/api/v2/fields', { key: 'plan', type: 'text' }).expect(201);
    const writer = await org.newKey({ scope: 'contacts:write' });
    expectRequestError(await call('post', '/api/v2/fields', { key: 'other', type: 'text' }, writer), 403, 'INSUFFICIENT_SCOPE');
    expectRequestError(await call('patch', '/api/v2/fields/plan', { required: true }, writer), 403, 'INSUFFICIENT_SCOPE');
    expect((await call('get', '/api/v2/fields', undefined, writer)).body.custom).toEqual([
      { key: 'plan', type: 'text', required: false, defaultValue: null, options: null },
    ]);
  });
});

