import { expectFailure, expectRequestError, expectSuccess, Org, uniqueEmail, useOrgWithList, UUID_RE } from './helpers';

/** POST /api/v2/contacts: every per-contact code with its HTTP status and exact body (docs/api.md#endpoints, #rules-and-codes). */
describe('POST /api/v2/contacts — outcomes and bodies', () => {
  const ctx = useOrgWithList();

  describe('created', () => {
    it('answers 201 { request_id, id, email, status: "created" } with the normalized email, and GET finds it', async () => {
      const res = await ctx.org.postContact({ email: '  Ada.Lovelace@Example.COM ', listIds: [ctx.list], fields: { firstName: 'Ada' } });
      const id = expectSuccess(res, 'created', 'ada.lovelace@example.com');
      expect(res.headers['x-request-id']).toMatch(UUID_RE);
      const stored = await ctx.org.read('ada.lovelace@example.com');
      expect(stored).toMatchObject({ id, email: 'ada.lovelace@example.com', listIds: [ctx.list], fields: { firstName: 'Ada' }, suppressed: null });
    });

    it('accepts overwrite: false and overwrite: true for an absent contact (created)', async () => {
      const a = uniqueEmail();
      const b = uniqueEmail();
      expectSuccess(await ctx.org.postContact({ email: a, listIds: [ctx.list], overwrite: false }), 'created', a);
      expectSuccess(await ctx.org.postContact({ email: b, listIds: [ctx.list], overwrite: true }), 'created', b);
    });

    it('accepts a contact without fields', async () => {
      const e = uniqueEmail();
      expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list] }), 'created', e);
      expect((await ctx.org.read(e))?.fields).toEqual({});
    });

    it('every response has a fresh X-Request-Id; a client-sent X-Request-Id is ignored', async () => {
      const res1 = await ctx.org
        .postRaw('/api/v2/contacts', JSON.stringify({ email: uniqueEmail(), listIds: [ctx.list] }))
        .set('X-Request-Id', 'client-chosen-id');
      const res2 = await ctx.org.postContact({ email: uniqueEmail(), listIds: [ctx.list] });
      expect(res1.headers['x-request-id']).toMatch(UUID_RE);
      expect(res1.headers['x-request-id']).not.toBe('client-chosen-id');
      expect(res1.body.request_id).toBe(res1.headers['x-request-id']);
      expect(res2.headers['x-request-id']).not.toBe(res1.headers['x-request-id']);
    });
  });

  describe('INVALID_EMAIL (400)', () => {
    it.each([
      ['no at sign', 'plainaddress', 'plainaddress'],
      ['domain without a dot', 'Ada@Localhost', 'ada@localhost'],
      ['empty string', '', ''],
      ['only spaces', '   ', ''],
      ['two at signs', 'a@b@example.com', 'a@b@example.com'],
      ['space inside', 'ada lovelace@example.com', 'ada lovelace@example.com'],
      ['non-ASCII local part', 'jörg@example.com', 'jörg@example.com'],
      ['internationalized domain', 'ada@exämple.com', 'ada@exämple.com'],
      ['quoted local part', '"ada"@example.com', '"ada"@example.com'],
      ['IP literal domain', 'ada@[127.0.0.1]', 'ada@[127.0.0.1]'],
      ['label starting with a hyphen', 'ada@-example.com', 'ada@-example.com'],
      ['label ending with a hyphen', 'ada@example-.com', 'ada@example-.com'],
      ['empty label', 'ada@example..com', 'ada@example..com'],
      ['trailing dot', 'ada@example.com.', 'ada@example.com.'],
      ['underscore in domain', 'ada@exa_mple.com', 'ada@exa_mple.com'],
      ['missing local part', '@example.com', '@example.com'],
      ['local part of 65 characters', `${'a'.repeat(65)}@example.com`, `${'a'.repeat(65)}@example.com`],
      ['domain label of 64 characters', `ada@${'b'.repeat(64)}.com`, `ada@${'b'.repeat(64)}.com`],
      ['U+0000 inside', 'ada\u0000@example.com', 'ada\u0000@example.com'],
    ])('%s → 400 INVALID_EMAIL with the normalized email', async (_name, email, normalized) => {
      const res = await ctx.org.postContact({ email, listIds: [ctx.list] });
      expectFailure(res, 'INVALID_EMAIL', normalized);
    });

    it('a whole address of 255 characters is refused, 254 is accepted', async () => {
      // 64 + 1 + 63 + 1 + 63 + 1 + 61 = 254
      const domain254 = `${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(57)}.com`;
      const ok = `${'a'.repeat(64)}@${domain254}`;
      expect(ok.length).toBe(254);
      expectSuccess(await ctx.org.postContact({ email: ok, listIds: [ctx.list] }), 'created', ok);
      const tooLong = `${'a'.repeat(64)}@${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(58)}.com`;
      expect(tooLong.length).toBe(255);
      expectFailure(await ctx.org.postContact({ email: tooLong, listIds: [ctx.list] }), 'INVALID_EMAIL', tooLong);
    });

    it.each([
      ['local part of 64 characters', `${'a'.repeat(64)}@example.com`],
      ['domain label of 63 characters', `ada@${'b'.repeat(63)}.com`],
      ['WHATWG specials in the local part', "a.b+c!#$%&'*/=?^_`{|}~-@example.com"],
      ['dots anywhere in the local part (WHATWG allows them)', '.a..b.@example.com'],
      ['hyphen inside a label', 'ada@my-example.co.uk'],
      ['digits-only labels', 'ada@123.456'],
      ['single-letter labels', 'a@b.c'],
    ])('%s is a valid email (created)', async (_name, email) => {
      expectSuccess(await ctx.org.postContact({ email, listIds: [ctx.list] }), 'created', email.toLowerCase());
    });

    it.each([
      ['null', null],
      ['a number', 42],
      ['a boolean', true],
      ['an array', ['ada@example.com']],
      ['an object', { address: 'ada@example.com' }],
    ])('email %s → 400 INVALID_EMAIL with email null', async (_name, email) => {
      expectFailure(await ctx.org.postContact({ email, listIds: [ctx.list] }), 'INVALID_EMAIL', null);
    });

    it('missing email → 400 INVALID_EMAIL with email null', async () => {
      expectFailure(await ctx.org.postContact({ listIds: [ctx.list] }), 'INVALID_EMAIL', null);
    });
  });

  describe('EMPTY_LIST_IDS / TOO_MANY_LIST_IDS (400)', () => {
    it('missing listIds → EMPTY_LIST_IDS', async () => {
      const e = uniqueEmail();
      expectFailure(await ctx.org.postContact({ email: e }), 'EMPTY_LIST_IDS', e);
      expect(await ctx.org.read(e)).toBeNull();
    });

    it('empty listIds → EMPTY_LIST_IDS', async () => {
      const e = uniqueEmail();
      expectFailure(await ctx.org.postContact({ email: e, listIds: [] }), 'EMPTY_LIST_IDS', e);
    });

    it('21 distinct valid lists → TOO_MANY_LIST_IDS; 20 are accepted', async () => {
      const ids = await ctx.org.lists(21);
      const e = uniqueEmail();
      expectFailure(await ctx.org.postContact({ email: e, listIds: ids }), 'TOO_MANY_LIST_IDS', e);
      expect(await ctx.org.read(e)).toBeNull();
      expectSuccess(await ctx.org.postContact({ email: e, listIds: ids.slice(0, 20) }), 'created', e);
      expect((await ctx.org.read(e))?.listIds).toHaveLength(20);
    });

    it('the same list repeated 21 times counts 21 → TOO_MANY_LIST_IDS', async () => {
      const e = uniqueEmail();
      expectFailure(await ctx.org.postContact({ email: e, listIds: Array(21).fill(ctx.list) }), 'TOO_MANY_LIST_IDS', e);
    });

    it('the same list repeated 20 times is accepted and gives one membership', async () => {
      const e = uniqueEmail();
      expectSuccess(await ctx.org.postContact({ email: e, listIds: Array(20).fill(ctx.list) }), 'created', e);
      expect((await ctx.org.read(e))?.listIds).toEqual([ctx.list]);
    });
  });

  describe('INVALID_LIST (400) and invalidListIds', () => {
    it('unknown, archived and foreign lists are all INVALID_LIST, listed once each in order of first appearance', async () => {
      const archived = await ctx.org.list('Old', true);
      const other = await Org.create(ctx.t, 'Other');
      const foreign = await other.list('Theirs');
      const unknown = '00000000-0000-4000-8000-000000000000';
      const e = uniqueEmail();
      const res = await ctx.org.postContact({
        email: e,
        listIds: [ctx.list, foreign, unknown, foreign, archived, 'not-a-uuid', unknown, ctx.list],
      });
      expectFailure(res, 'INVALID_LIST', e, { invalidListIds: [foreign, unknown, archived, 'not-a-uuid'] });
      expect(await ctx.org.read(e)).toBeNull();
    });

    it('an archived list alone → INVALID_LIST [archived]', async () => {
      const archived = await ctx.org.list('Old', true);
      const e = uniqueEmail();
      expectFailure(await ctx.org.postContact({ email: e, listIds: [archived] }), 'INVALID_LIST', e, { invalidListIds: [archived] });
    });

    it("another organization's list → INVALID_LIST", async () => {
      const other = await Org.create(ctx.t, 'Other');
      const foreign = await other.list('Theirs');
      const e = uniqueEmail();
      expectFailure(await ctx.org.postContact({ email: e, listIds: [foreign] }), 'INVALID_LIST', e, { invalidListIds: [foreign] });
      expect(await other.read(e)).toBeNull();
    });

    it('the messages of unknown, archived and foreign lists are indistinguishable', async () => {
      const archived = await ctx.org.list('Old', true);
      const other = await Org.create(ctx.t, 'Other');
      const foreign = await other.list('Theirs');
      const unknown = '00000000-0000-4000-8000-000000000001';
      const messages: string[] = [];
      for (const id of [archived, foreign, unknown]) {
        const res = await ctx.org.postContact({ email: 'same@example.com', listIds: [id] });
        expectFailure(res, 'INVALID_LIST', 'same@example.com', { invalidListIds: [id] });
        messages.push(String(res.body.message).split(id).join('<id>'));
      }
      expect(new Set(messages).size).toBe(1);
    });

    it('a list ID that is an empty string or holds U+0000 → INVALID_LIST (not 500)', async () => {
      const e = uniqueEmail();
      expectFailure(await ctx.org.postContact({ email: e, listIds: ['', 'a\u0000b'] }), 'INVALID_LIST', e, {
        invalidListIds: ['', 'a\u0000b'],
      });
    });
  });

  describe('UNKNOWN_FIELD (400)', () => {
    it('names every unknown key in the message', async () => {
      const e = uniqueEmail();
      const res = await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { firstName: 'A', shoeSize: 42, favouriteColour: 'red' } });
      expectFailure(res, 'UNKNOWN_FIELD', e);
      expect(res.body.message).toContain('shoeSize');
      expect(res.body.message).toContain('favouriteColour');
      expect(await ctx.org.read(e)).toBeNull();
    });
  });

  describe('FIELD_TYPE_MISMATCH (400)', () => {
    it('a standard field given a number', async () => {
      const e = uniqueEmail();
      expectFailure(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { firstName: 42 } }), 'FIELD_TYPE_MISMATCH', e);
      expect(await ctx.org.read(e)).toBeNull();
    });
  });

  describe('REQUIRED_FIELD_MISSING (400)', () => {
    it('null for a required custom field (rule 7)', async () => {
      await ctx.org.field('plan', 'text', { required: true, defaultValue: 'free' });
      const e = uniqueEmail();
      expectFailure(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { plan: null } }), 'REQUIRED_FIELD_MISSING', e);
      expect(await ctx.org.read(e)).toBeNull();
    });

    it('a required custom field without a default not given on create (rule 10)', async () => {
      await ctx.org.field('plan', 'text', { required: true });
      const e = uniqueEmail();
      expectFailure(await ctx.org.postContact({ email: e, listIds: [ctx.list] }), 'REQUIRED_FIELD_MISSING', e);
      expect(await ctx.org.read(e)).toBeNull();
    });
  });

  describe('DUPLICATE_EMAIL / SUPPRESSED_EMAIL (409)', () => {
    it('an existing contact without overwrite → 409 DUPLICATE_EMAIL, nothing changes', async () => {
      const e = uniqueEmail();
      expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { firstName: 'Ada' } }), 'created', e);
      const before = await ctx.org.read(e);
      const list2 = await ctx.org.list('Second');
      const res = await ctx.org.postContact({ email: e.toUpperCase(), listIds: [list2], fields: { firstName: 'Bob' } });
      expectFailure(res, 'DUPLICATE_EMAIL', e);
      expect(await ctx.org.read(e)).toEqual(before);
    });

    it('explicit overwrite: false behaves like absent → 409 DUPLICATE_EMAIL', async () => {
      const e = uniqueEmail();
      await ctx.org.postContact({ email: e, listIds: [ctx.list] });
      expectFailure(await ctx.org.postContact({ email: e, listIds: [ctx.list], overwrite: false }), 'DUPLICATE_EMAIL', e);
    });

    it.each(['bounced', 'complained', 'unsubscribed'] as const)(
      'a suppressed email (%s) without overwrite → 409 SUPPRESSED_EMAIL with suppressionReason',
      async (reason) => {
        const e = uniqueEmail();
        await ctx.org.suppress(e, reason);
        const res = await ctx.org.postContact({ email: `  ${e.toUpperCase()}`, listIds: [ctx.list] });
        expectFailure(res, 'SUPPRESSED_EMAIL', e, { suppressionReason: reason });
        expect(await ctx.org.read(e)).toBeNull();
      },
    );

    it('a retried create answers DUPLICATE_EMAIL and never makes a second contact', async () => {
      const e = uniqueEmail();
      const body = { email: e, listIds: [ctx.list], fields: { city: 'London' } };
      const id = expectSuccess(await ctx.org.postContact(body), 'created', e);
      expectFailure(await ctx.org.postContact(body), 'DUPLICATE_EMAIL', e);
      expect((await ctx.org.read(e))?.id).toBe(id);
    });

    it('concurrent creates of one email: exactly one 201, the others 409 DUPLICATE_EMAIL, one contact', async () => {
      const e = uniqueEmail();
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) => ctx.org.postContact({ email: i % 2 ? e.toUpperCase() : e, listIds: [ctx.list] })),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
      const winner = responses.find((r) => r.status === 201)!;
      for (const r of responses.filter((x) => x.status === 409)) expectFailure(r, 'DUPLICATE_EMAIL', e);
      expect((await ctx.org.read(e))?.id).toBe(winner.body.id);
    });
  });

  describe('the failure body', () => {
    it('carries invalidListIds only with INVALID_LIST and suppressionReason only with SUPPRESSED_EMAIL', async () => {
      // every other code is checked with an exact body by expectFailure (toEqual), so one example suffices here
      const e = uniqueEmail();
      const res = await ctx.org.postContact({ email: e, listIds: [] });
      expect(res.body).not.toHaveProperty('invalidListIds');
      expect(res.body).not.toHaveProperty('suppressionReason');
      expect(res.body).not.toHaveProperty('id');
    });

    it('request_id equals the X-Request-Id header on failure and success', async () => {
      const ok = await ctx.org.postContact({ email: uniqueEmail(), listIds: [ctx.list] });
      const bad = await ctx.org.postContact({ email: 'bad', listIds: [ctx.list] });
      expect(ok.body.request_id).toBe(ok.headers['x-request-id']);
      expect(bad.body.request_id).toBe(bad.headers['x-request-id']);
    });
  });
});

/** Shape errors on the single endpoint are request-level (docs/api.md#a-contact). */
describe('POST /api/v2/contacts — shape errors', () => {
  const ctx = useOrgWithList();

  it.each([
    ['an array', '[{"email":"a@example.com","listIds":[]}]'],
    ['an empty array', '[]'],
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"a@example.com"'],
    ['true', 'true'],
  ])('a body that is %s → 400 INVALID_REQUEST', async (_name, raw) => {
    expectRequestError(await ctx.org.postRaw('/api/v2/contacts', raw), 400, 'INVALID_REQUEST');
  });

  it('an unknown key → 400 INVALID_REQUEST naming it; nothing written', async () => {
    const e = uniqueEmail();
    const res = await ctx.org.postContact({ email: e, listIds: [ctx.list], firstName: 'Ada' });
    expectRequestError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toContain('firstName');
    expect(await ctx.org.read(e)).toBeNull();
  });

  it.each([
    ['listIds', null],
    ['listIds', 'abc'],
    ['listIds', {}],
    ['listIds', [1]],
    ['listIds', [null]],
    ['listIds', [['x']]],
    ['fields', null],
    ['fields', []],
    ['fields', 'firstName=Ada'],
    ['fields', 7],
    ['overwrite', null],
    ['overwrite', 'true'],
    ['overwrite', 1],
    ['overwrite', []],
  ])('%s = %j → 400 INVALID_REQUEST whose message names the key', async (key, value) => {
    const e = uniqueEmail();
    const body: Record<string, unknown> = { email: e, listIds: [ctx.list], [key]: value };
    const res = await ctx.org.postContact(body);
    expectRequestError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toContain(key);
    expect(res.body.error.message).not.toContain('contacts[');
    expect(await ctx.org.read(e)).toBeNull();
  });

  it('a shape error wins over a per-contact error (invalid email + listIds not an array → INVALID_REQUEST)', async () => {
    expectRequestError(await ctx.org.postContact({ email: 'nope', listIds: 'x' }), 400, 'INVALID_REQUEST');
  });

  it('email null is rule 1, not a shape error', async () => {
    expectFailure(await ctx.org.postContact({ email: null, listIds: [ctx.list] }), 'INVALID_EMAIL', null);
  });

  it.each([
    ['empty body', ''],
    ['malformed JSON', '{"email": "a@example.com", '],
    ['trailing garbage', '{"email": "a@example.com"} x'],
  ])('%s → 400 INVALID_REQUEST', async (_name, raw) => {
    expectRequestError(await ctx.org.postRaw('/api/v2/contacts', raw), 400, 'INVALID_REQUEST');
  });
});
