import { bootApp, expectFailure, expectSuccess, Org, uniqueEmail, useOrgWithList } from './helpers';

/** docs/api.md#fields: what fits each field, defaults on create, names. */
describe('field typing', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeEach(async () => {
    ({ org, list } = await Org.withList(app.t, [
      { key: 'bio', type: 'text' },
      { key: 'age', type: 'number' },
      { key: 'vip', type: 'boolean' },
      { key: 'birthday', type: 'date' },
      { key: 'colour', type: 'select', options: ['red', 'green', 'Blue'] },
    ]));
  });

  const emoji = '\u{1F600}'; // one code point, two UTF-16 units

  const fits: Array<[string, string, unknown]> = [
    ['text', 'bio', 'hello'],
    ['text', 'bio', 'x'.repeat(2000)],
    ['text', 'bio', emoji.repeat(2000)],
    ['text', 'bio', 'é'.repeat(2000)],
    ['number', 'age', 0],
    ['number', 'age', 42],
    ['number', 'age', -3.25],
    ['number', 'age', 1e21],
    ['number', 'age', 123456789.125],
    ['boolean', 'vip', true],
    ['boolean', 'vip', false],
    ['date', 'birthday', '2024-02-29'],
    ['date', 'birthday', '2000-02-29'],
    ['date', 'birthday', '1999-12-31'],
    ['date', 'birthday', '2023-01-01'],
    ['select', 'colour', 'red'],
    ['select', 'colour', 'Blue'],
    ['standard', 'firstName', 'Ada'],
    ['standard', 'lastName', 'x'.repeat(255)],
    ['standard', 'company', emoji.repeat(255)],
    ['standard', 'phone', '+44 20 7946 0000'],
    ['standard', 'jobTitle', 'Engineer'],
    ['standard', 'city', 'Zürich'],
    ['standard', 'country', 'CH'],
  ];

  it.each(fits)('%s field %s accepts %j and reads it back identically', async (_type, key, value) => {
    const e = uniqueEmail();
    expectSuccess(await org.postContact({ email: e, listIds: [list], fields: { [key]: value } }), 'created', e);
    expect((await org.read(e))?.fields).toEqual({ [key]: value });
  });

  const misfits: Array<[string, string, unknown]> = [
    ['text', 'bio', 'x'.repeat(2001)],
    ['text', 'bio', emoji.repeat(2001)],
    ['text', 'bio', 5],
    ['text', 'bio', true],
    ['text', 'bio', ['a']],
    ['text', 'bio', { a: 1 }],
    ['text', 'bio', 'a\u0000b'],
    ['number', 'age', '5'],
    ['number', 'age', '5.5'],
    ['number', 'age', ''],
    ['number', 'age', true],
    ['number', 'age', [1]],
    ['number', 'age', { value: 1 }],
    ['boolean', 'vip', 'true'],
    ['boolean', 'vip', 1],
    ['boolean', 'vip', 0],
    ['boolean', 'vip', 'yes'],
    ['boolean', 'vip', [true]],
    ['date', 'birthday', '2023-02-29'],
    ['date', 'birthday', '1900-02-29'],
    ['date', 'birthday', '2024-04-31'],
    ['date', 'birthday', '2024-13-01'],
    ['date', 'birthday', '2024-00-10'],
    ['date', 'birthday', '2024-01-00'],
    ['date', 'birthday', '2024-01-32'],
    ['date', 'birthday', '2024-1-01'],
    ['date', 'birthday', '2024-01-1'],
    ['date', 'birthday', '24-01-01'],
    ['date', 'birthday', '2024/01/01'],
    ['date', 'birthday', '2024-01-01T00:00:00Z'],
    ['date', 'birthday', ' 2024-01-01'],
    ['date', 'birthday', '２０２４-01-01'],
    ['date', 'birthday', ''],
    ['date', 'birthday', 20240101],
    ['date', 'birthday', 'not a date'],
    ['date', 'birthday', '2024-01-01\u0000'],
    ['select', 'colour', 'Red'],
    ['select', 'colour', 'blue'],
    ['select', 'colour', 'purple'],
    ['select', 'colour', ''],
    ['select', 'colour', ['red']],
    ['select', 'colour', 1],
    ['select', 'colour', 'red\u0000'],
    ['standard', 'firstName', 'x'.repeat(256)],
    ['standard', 'lastName', emoji.repeat(256)],
    ['standard', 'phone', 4420794600],
    ['standard', 'city', true],
    ['standard', 'country', ['CH']],
    ['standard', 'company', { name: 'X' }],
    ['standard', 'jobTitle', 'a\u0000'],
  ];

  it.each(misfits)('%s field %s refuses %j → 400 FIELD_TYPE_MISMATCH, nothing written', async (_type, key, value) => {
    const e = uniqueEmail();
    expectFailure(await org.postContact({ email: e, listIds: [list], fields: { [key]: value } }), 'FIELD_TYPE_MISMATCH', e);
    expect(await org.read(e)).toBeNull();
  });

  it('number fields refuse non-finite values written as huge literals (1e400) without a 500', async () => {
    const e = uniqueEmail();
    const res = await org.postRaw('/api/v2/contacts', `{"email":"${e}","listIds":["${list}"],"fields":{"age":1e400}}`);
    expectFailure(res, 'FIELD_TYPE_MISMATCH', e);
  });

  it('null fits every non-required field (create: no value)', async () => {
    const e = uniqueEmail();
    const res = await org.postContact({
      email: e,
      listIds: [list],
      fields: { bio: null, age: null, vip: null, birthday: null, colour: null, firstName: null, city: 'Oslo' },
    });
    expectSuccess(res, 'created', e);
    expect((await org.read(e))?.fields).toEqual({ city: 'Oslo' });
  });

  it('a field value in another type of field is refused with a message (not only the first field is checked)', async () => {
    const e = uniqueEmail();
    const res = await org.postContact({ email: e, listIds: [list], fields: { firstName: 'ok', age: 'old' } });
    expectFailure(res, 'FIELD_TYPE_MISMATCH', e);
  });
});

describe('field names', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeEach(async () => {
    ({ org, list } = await Org.withList(app.t, [{ key: 'score', type: 'number' }]));
  });

  it.each([['FirstName'], ['firstname'], ['first_name'], ['Score'], ['SCORE'], ['email'], ['listIds']])(
    '%s is not a field (names are case-sensitive) → UNKNOWN_FIELD',
    async (key) => {
      const e = uniqueEmail();
      const res = await org.postContact({ email: e, listIds: [list], fields: { [key]: 'x' } });
      expectFailure(res, 'UNKNOWN_FIELD', e);
      expect(res.body.message).toContain(key);
    },
  );

  it.each([['__proto__'], ['constructor'], ['prototype'], ['toString'], ['hasOwnProperty'], ['valueOf'], ['__defineGetter__']])(
    '%s in fields is an ordinary unknown key → UNKNOWN_FIELD naming it',
    async (key) => {
      const e = uniqueEmail();
      const raw = `{"email":"${e}","listIds":["${list}"],"fields":{"${key}":{"polluted":true}}}`;
      const res = await org.postRaw('/api/v2/contacts', raw);
      expectFailure(res, 'UNKNOWN_FIELD', e);
      expect(res.body.message).toContain(key);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(await org.read(e)).toBeNull();
    },
  );

  it('__proto__ in fields inside a batch row → UNKNOWN_FIELD for that row only', async () => {
    const e1 = uniqueEmail();
    const e2 = uniqueEmail();
    const raw = `{"contacts":[{"email":"${e1}","listIds":["${list}"],"fields":{"__proto__":{"firstName":"x"}}},{"email":"${e2}","listIds":["${list}"]}]}`;
    const res = await org.postRaw('/api/v2/contacts/batch', raw);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { code?: string; status: string }) => r.code ?? r.status)).toEqual(['UNKNOWN_FIELD', 'created']);
  });

  it('__proto__ as a top-level key of the contact is an unknown key (shape error), not ignored', async () => {
    const e = uniqueEmail();
    const res = await org.postRaw('/api/v2/contacts', `{"email":"${e}","listIds":["${list}"],"__proto__":{"overwrite":true}}`);
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('INVALID_REQUEST');
  });

  it("another organization's custom field is unknown here", async () => {
    const other = await Org.create(app.t, 'Other');
    await other.field('loyalty', 'number');
    const e = uniqueEmail();
    expectFailure(await org.postContact({ email: e, listIds: [list], fields: { loyalty: 1 } }), 'UNKNOWN_FIELD', e);
  });
});

describe('defaults and required fields on create', () => {
  const ctx = useOrgWithList();

  it('every custom field with a default that the input does not set gets its default', async () => {
    await ctx.org.field('plan', 'select', { options: ['free', 'pro'], defaultValue: 'free' });
    await ctx.org.field('credits', 'number', { defaultValue: 10 });
    await ctx.org.field('optin', 'boolean', { defaultValue: false });
    await ctx.org.field('since', 'date', { defaultValue: '2020-01-01' });
    await ctx.org.field('note', 'text', { defaultValue: 'n/a', required: true });
    await ctx.org.field('nickname', 'text');
    const e = uniqueEmail();
    expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { credits: 3 } }), 'created', e);
    expect((await ctx.org.read(e))?.fields).toEqual({ plan: 'free', credits: 3, optin: false, since: '2020-01-01', note: 'n/a' });
  });

  it('null on create means no value: the default is not applied', async () => {
    await ctx.org.field('plan', 'text', { defaultValue: 'free' });
    const e = uniqueEmail();
    expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { plan: null } }), 'created', e);
    expect((await ctx.org.read(e))?.fields).toEqual({});
  });

  it('null on create for a required field with a default → REQUIRED_FIELD_MISSING (rule 7)', async () => {
    await ctx.org.field('plan', 'text', { required: true, defaultValue: 'free' });
    const e = uniqueEmail();
    expectFailure(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { plan: null } }), 'REQUIRED_FIELD_MISSING', e);
    expect(await ctx.org.read(e)).toBeNull();
  });

  it('a required field with a default, omitted → created with the default', async () => {
    await ctx.org.field('plan', 'text', { required: true, defaultValue: 'free' });
    const e = uniqueEmail();
    expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list] }), 'created', e);
    expect((await ctx.org.read(e))?.fields).toEqual({ plan: 'free' });
  });

  it('a required field without a default, omitted → REQUIRED_FIELD_MISSING; given → created', async () => {
    await ctx.org.field('plan', 'text', { required: true });
    const e = uniqueEmail();
    expectFailure(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { firstName: 'A' } }), 'REQUIRED_FIELD_MISSING', e);
    expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { plan: 'gold' } }), 'created', e);
    expect((await ctx.org.read(e))?.fields).toEqual({ plan: 'gold' });
  });

  it('a required boolean set to false counts as a value', async () => {
    await ctx.org.field('agreed', 'boolean', { required: true });
    const e = uniqueEmail();
    expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { agreed: false } }), 'created', e);
    expect((await ctx.org.read(e))?.fields).toEqual({ agreed: false });
  });

  it('a required number set to 0 counts as a value', async () => {
    await ctx.org.field('seats', 'number', { required: true });
    const e = uniqueEmail();
    expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { seats: 0 } }), 'created', e);
    expect((await ctx.org.read(e))?.fields).toEqual({ seats: 0 });
  });
});
