import { expectFailure, expectSuccess, Org, sorted, uniqueEmail, useOrgWithList } from './helpers';

/** docs/api.md#rules-and-codes (outcomes, changedFields / addedListIds) and #fields (null on an empty field). */
describe('updates (overwrite: true)', () => {
  const ctx = useOrgWithList();

  async function create(fields: Record<string, unknown>, listIds = [ctx.list]): Promise<{ email: string; id: string }> {
    const email = uniqueEmail();
    const id = expectSuccess(await ctx.org.postContact({ email, listIds, fields }), 'created', email);
    return { email, id };
  }

  it('fields merge: given keys are set, null clears, keys not given keep their value', async () => {
    await ctx.org.field('score', 'number');
    await ctx.org.field('tier', 'text');
    const c = await create({ firstName: 'Ada', lastName: 'Lovelace', city: 'London', score: 1, tier: 'gold' });
    const res = await ctx.org.postContact({ email: c.email, listIds: [ctx.list], fields: { firstName: 'Augusta', lastName: null, score: 2 }, overwrite: true });
    expectSuccess(res, 'updated', c.email, { changedFields: ['firstName', 'lastName', 'score'], addedListIds: [] });
    expect(res.body.id).toBe(c.id);
    const stored = await ctx.org.read(c.email);
    expect(stored?.fields).toEqual({ firstName: 'Augusta', city: 'London', score: 2, tier: 'gold' });
    expect(stored?.id).toBe(c.id);
  });

  it('changedFields lists only the keys whose value changed, sorted', async () => {
    await ctx.org.field('zeta', 'text');
    await ctx.org.field('alpha', 'number');
    const c = await create({ city: 'Oslo', company: 'Acme', zeta: 'z' });
    const res = await ctx.org.postContact({
      email: c.email,
      listIds: [ctx.list],
      fields: { zeta: 'zz', company: 'Acme', city: 'Bergen', alpha: 1, phone: null },
      overwrite: true,
    });
    expectSuccess(res, 'updated', c.email, { changedFields: ['alpha', 'city', 'zeta'], addedListIds: [] });
  });

  it('listIds add memberships and never remove one; addedListIds lists only the new ones', async () => {
    const [l2, l3] = await ctx.org.lists(2);
    const c = await create({}, [ctx.list, l2]);
    const res = await ctx.org.postContact({ email: c.email, listIds: [l3, l2], overwrite: true });
    expectSuccess(res, 'updated', c.email, { changedFields: [], addedListIds: [l3] });
    expect(sorted((await ctx.org.read(c.email))?.listIds ?? [])).toEqual(sorted([ctx.list, l2, l3]));

    const res2 = await ctx.org.postContact({ email: c.email, listIds: [ctx.list], overwrite: true });
    expectSuccess(res2, 'unchanged', c.email);
    expect(sorted((await ctx.org.read(c.email))?.listIds ?? [])).toEqual(sorted([ctx.list, l2, l3]));
  });

  it('addedListIds holds several new lists (as a set)', async () => {
    const [l2, l3] = await ctx.org.lists(2);
    const c = await create({});
    const res = await ctx.org.postContact({ email: c.email, listIds: [l3, ctx.list, l2], fields: { city: 'X' }, overwrite: true });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('updated');
    expect(res.body.changedFields).toEqual(['city']);
    expect(sorted(res.body.addedListIds)).toEqual(sorted([l2, l3]));
  });

  it('nothing changes → 200 unchanged with the id, and the stored contact is identical', async () => {
    await ctx.org.field('birthday', 'date');
    await ctx.org.field('score', 'number');
    await ctx.org.field('vip', 'boolean');
    const c = await create({ firstName: 'Ada', birthday: '1815-12-10', score: 3.5, vip: false });
    const before = await ctx.org.read(c.email);
    const res = await ctx.org.postContact({
      email: ` ${c.email.toUpperCase()}`,
      listIds: [ctx.list, ctx.list],
      fields: { firstName: 'Ada', birthday: '1815-12-10', score: 3.5, vip: false },
      overwrite: true,
    });
    expect(expectSuccess(res, 'unchanged', c.email)).toBe(c.id);
    expect(await ctx.org.read(c.email)).toEqual(before);
  });

  it('null for a field that is already empty changes nothing (unchanged)', async () => {
    await ctx.org.field('score', 'number');
    const c = await create({ firstName: 'Ada' });
    const res = await ctx.org.postContact({ email: c.email, listIds: [ctx.list], fields: { lastName: null, score: null }, overwrite: true });
    expectSuccess(res, 'unchanged', c.email);
    expect((await ctx.org.read(c.email))?.fields).toEqual({ firstName: 'Ada' });
  });

  it('an update with no fields and known lists is unchanged', async () => {
    const c = await create({ city: 'Paris' });
    expectSuccess(await ctx.org.postContact({ email: c.email, listIds: [ctx.list], overwrite: true }), 'unchanged', c.email);
    expectSuccess(await ctx.org.postContact({ email: c.email, listIds: [ctx.list], fields: {}, overwrite: true }), 'unchanged', c.email);
  });

  it('a retried update answers unchanged', async () => {
    const l2 = await ctx.org.list('Two');
    const c = await create({ city: 'Paris' });
    const body = { email: c.email, listIds: [l2], fields: { city: 'Nice' }, overwrite: true };
    expectSuccess(await ctx.org.postContact(body), 'updated', c.email, { changedFields: ['city'], addedListIds: [l2] });
    expectSuccess(await ctx.org.postContact(body), 'unchanged', c.email);
  });

  it('defaults are not applied to non-required fields on update', async () => {
    const c = await create({});
    await ctx.org.field('plan', 'text', { defaultValue: 'free' });
    expectSuccess(await ctx.org.postContact({ email: c.email, listIds: [ctx.list], overwrite: true }), 'unchanged', c.email);
    expect((await ctx.org.read(c.email))?.fields).toEqual({});
  });

  it('update: a required field with no stored value gets its default (a change like any other)', async () => {
    const c = await create({ city: 'Rome' });
    await ctx.org.field('plan', 'text', { required: true, defaultValue: 'free' });
    const res = await ctx.org.postContact({ email: c.email, listIds: [ctx.list], overwrite: true });
    expectSuccess(res, 'updated', c.email, { changedFields: ['plan'], addedListIds: [] });
    expect((await ctx.org.read(c.email))?.fields).toEqual({ city: 'Rome', plan: 'free' });
    expectSuccess(await ctx.org.postContact({ email: c.email, listIds: [ctx.list], overwrite: true }), 'unchanged', c.email);
  });

  it('update: the default does not replace a value the input sets', async () => {
    const c = await create({});
    await ctx.org.field('plan', 'text', { required: true, defaultValue: 'free' });
    const res = await ctx.org.postContact({ email: c.email, listIds: [ctx.list], fields: { plan: 'pro' }, overwrite: true });
    expectSuccess(res, 'updated', c.email, { changedFields: ['plan'], addedListIds: [] });
    expect((await ctx.org.read(c.email))?.fields).toEqual({ plan: 'pro' });
  });

  it('update: a required field with no stored value and no default → 400 REQUIRED_FIELD_MISSING, nothing changes', async () => {
    const c = await create({ city: 'Rome' });
    await ctx.org.field('plan', 'text', { required: true });
    const before = await ctx.org.read(c.email);
    const res = await ctx.org.postContact({ email: c.email, listIds: [ctx.list], fields: { city: 'Milan' }, overwrite: true });
    expectFailure(res, 'REQUIRED_FIELD_MISSING', c.email);
    expect(await ctx.org.read(c.email)).toEqual(before);
  });

  it('update: a required field with a stored value may be omitted', async () => {
    await ctx.org.field('plan', 'text', { required: true });
    const c = await create({ plan: 'pro' });
    const res = await ctx.org.postContact({ email: c.email, listIds: [ctx.list], fields: { city: 'Milan' }, overwrite: true });
    expectSuccess(res, 'updated', c.email, { changedFields: ['city'], addedListIds: [] });
    expect((await ctx.org.read(c.email))?.fields).toEqual({ plan: 'pro', city: 'Milan' });
  });

  it('update: null for a required field with a stored value → REQUIRED_FIELD_MISSING, value kept', async () => {
    await ctx.org.field('plan', 'text', { required: true, defaultValue: 'free' });
    const c = await create({ plan: 'pro' });
    const res = await ctx.org.postContact({ email: c.email, listIds: [ctx.list], fields: { plan: null }, overwrite: true });
    expectFailure(res, 'REQUIRED_FIELD_MISSING', c.email);
    expect((await ctx.org.read(c.email))?.fields).toEqual({ plan: 'pro' });
  });

  it('a failed update (FIELD_TYPE_MISMATCH) changes nothing, not even lists', async () => {
    const l2 = await ctx.org.list('Two');
    const c = await create({ city: 'Rome' });
    const before = await ctx.org.read(c.email);
    expectFailure(
      await ctx.org.postContact({ email: c.email, listIds: [l2], fields: { city: 'Milan', firstName: 3 }, overwrite: true }),
      'FIELD_TYPE_MISMATCH',
      c.email,
    );
    expect(await ctx.org.read(c.email)).toEqual(before);
  });

  it('an update adding a list that is archived → INVALID_LIST, nothing changes', async () => {
    const archived = await ctx.org.list('Old', true);
    const c = await create({ city: 'Rome' });
    const before = await ctx.org.read(c.email);
    expectFailure(
      await ctx.org.postContact({ email: c.email, listIds: [archived], fields: { city: 'Milan' }, overwrite: true }),
      'INVALID_LIST',
      c.email,
      { invalidListIds: [archived] },
    );
    expect(await ctx.org.read(c.email)).toEqual(before);
  });

  it('overwrite: true on an absent contact creates it (201)', async () => {
    const e = uniqueEmail();
    expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'X' }, overwrite: true }), 'created', e);
  });

  it('concurrent identical updates: one updated, the rest unchanged', async () => {
    const c = await create({ city: 'A' });
    const body = { email: c.email, listIds: [ctx.list], fields: { city: 'B' }, overwrite: true };
    const responses = await Promise.all(Array.from({ length: 4 }, () => ctx.org.postContact(body)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(sorted(responses.map((r) => r.body.status))).toEqual(['unchanged', 'unchanged', 'unchanged', 'updated']);
  });

  it('addedListIds holds each new list once even when repeated in the input', async () => {
    const l2 = await ctx.org.list('Two');
    const e = uniqueEmail();
    await ctx.org.postContact({ email: e, listIds: [ctx.list] });
    const res = await ctx.org.postContact({ email: e, listIds: [l2, ctx.list, l2], overwrite: true });
    expectSuccess(res, 'updated', e, { changedFields: [], addedListIds: [l2] });
  });

  it('the update default rule also applies inside a batch, and a second run is unchanged', async () => {
    const a = uniqueEmail();
    const b = uniqueEmail();
    await ctx.org.postContact({ email: a, listIds: [ctx.list] });
    await ctx.org.postContact({ email: b, listIds: [ctx.list], fields: { city: 'X' } });
    await ctx.org.field('plan', 'select', { options: ['free', 'pro'], required: true, defaultValue: 'free' });
    const rows = [
      { email: a, listIds: [ctx.list], overwrite: true },
      { email: b, listIds: [ctx.list], fields: { plan: 'pro' }, overwrite: true },
    ];
    const first = await ctx.org.batch(rows);
    expect(first.body.results).toEqual([
      { index: 0, email: a, status: 'updated', id: expect.any(String), changedFields: ['plan'], addedListIds: [] },
      { index: 1, email: b, status: 'updated', id: expect.any(String), changedFields: ['plan'], addedListIds: [] },
    ]);
    const second = await ctx.org.batch(rows);
    expect(second.body.results.map((r: { status: string }) => r.status)).toEqual(['unchanged', 'unchanged']);
    expect((await ctx.org.read(a))?.fields).toEqual({ plan: 'free' });
    expect((await ctx.org.read(b))?.fields).toEqual({ plan: 'pro', city: 'X' });
  });

  it('clearing a custom field and setting a standard one report both in changedFields, sorted', async () => {
    await ctx.org.field('zed', 'text');
    await ctx.org.field('alpha', 'text');
    const e = uniqueEmail();
    await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { zed: 'z', alpha: 'a' } });
    const res = await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { alpha: null, zed: null, city: 'C' }, overwrite: true });
    expect(res.status).toBe(200);
    expect(res.body.changedFields).toEqual(sorted(['alpha', 'zed', 'city']));
    expect((await ctx.org.read(e))?.fields).toEqual({ city: 'C' });
  });

  it('an update of a contact that exists only with another case of the email updates that contact', async () => {
    const e = uniqueEmail();
    const id = expectSuccess(await ctx.org.postContact({ email: e.toUpperCase(), listIds: [ctx.list] }), 'created', e);
    const res = await ctx.org.postContact({ email: ` ${e} `, listIds: [ctx.list], fields: { city: 'X' }, overwrite: true });
    expect(expectSuccess(res, 'updated', e, { changedFields: ['city'], addedListIds: [] })).toBe(id);
  });

  it('a list archived after the contact joined it is INVALID_LIST on a later update, and nothing changes', async () => {
    const e = uniqueEmail();
    await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'A' } });
    await ctx.t.prisma.list.update({ where: { id: ctx.list }, data: { archived: true } });
    const before = await ctx.org.read(e);
    const res = await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'B' }, overwrite: true });
    expect({ status: res.status, code: res.body.code, invalidListIds: res.body.invalidListIds }).toEqual({
      status: 400,
      code: 'INVALID_LIST',
      invalidListIds: [ctx.list],
    });
    expect(await ctx.org.read(e)).toEqual(before);
  });
});

describe('suppression', () => {
  const ctx = useOrgWithList();

  it('suppressed existing contact without overwrite → 409 SUPPRESSED_EMAIL with reason; data untouched', async () => {
    const e = uniqueEmail();
    await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'A' } });
    await ctx.org.suppress(e, 'bounced');
    const before = await ctx.org.read(e);
    expect(before?.suppressed).toEqual({ reason: 'bounced' });
    const res = await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'B' } });
    expectFailure(res, 'SUPPRESSED_EMAIL', e, { suppressionReason: 'bounced' });
    expect(await ctx.org.read(e)).toEqual(before);
  });

  it('overwrite: true updates a suppressed contact and never lifts the suppression', async () => {
    const e = uniqueEmail();
    await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'A' } });
    await ctx.org.suppress(e, 'unsubscribed');
    const res = await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'B' }, overwrite: true });
    expectSuccess(res, 'updated', e, { changedFields: ['city'], addedListIds: [] });
    const stored = await ctx.org.read(e);
    expect(stored?.fields).toEqual({ city: 'B' });
    expect(stored?.suppressed).toEqual({ reason: 'unsubscribed' });
    // and again without overwrite: still suppressed
    expectFailure(await ctx.org.postContact({ email: e, listIds: [ctx.list] }), 'SUPPRESSED_EMAIL', e, { suppressionReason: 'unsubscribed' });
  });

  it('overwrite: true with nothing to change on a suppressed contact → unchanged, still suppressed', async () => {
    const e = uniqueEmail();
    await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'A' } });
    await ctx.org.suppress(e, 'complained');
    expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'A' }, overwrite: true }), 'unchanged', e);
    expect((await ctx.org.read(e))?.suppressed).toEqual({ reason: 'complained' });
  });

  it('suppressed but absent + overwrite: true → 201 created and still suppressed', async () => {
    const e = uniqueEmail();
    await ctx.org.suppress(e, 'complained');
    const id = expectSuccess(await ctx.org.postContact({ email: e.toUpperCase(), listIds: [ctx.list], overwrite: true }), 'created', e);
    const stored = await ctx.org.read(e);
    expect(stored?.id).toBe(id);
    expect(stored?.suppressed).toEqual({ reason: 'complained' });
    expectFailure(await ctx.org.postContact({ email: e, listIds: [ctx.list] }), 'SUPPRESSED_EMAIL', e, { suppressionReason: 'complained' });
  });

  it('suppressed but absent without overwrite → 409 SUPPRESSED_EMAIL, no contact', async () => {
    const e = uniqueEmail();
    await ctx.org.suppress(e, 'bounced');
    expectFailure(await ctx.org.postContact({ email: e, listIds: [ctx.list], overwrite: false }), 'SUPPRESSED_EMAIL', e, { suppressionReason: 'bounced' });
    expect(await ctx.org.read(e)).toBeNull();
  });

  it("another organization's suppression does not apply here", async () => {
    const other = await Org.create(ctx.t, 'Other');
    const e = uniqueEmail();
    await other.suppress(e, 'bounced');
    expectSuccess(await ctx.org.postContact({ email: e, listIds: [ctx.list] }), 'created', e);
    expect((await ctx.org.read(e))?.suppressed).toBeNull();
  });

  it('batch: suppressed rows carry suppressionReason; overwrite rows create and stay suppressed', async () => {
    const a = uniqueEmail();
    const b = uniqueEmail();
    await ctx.org.suppress(a, 'bounced');
    await ctx.org.suppress(b, 'unsubscribed');
    const res = await ctx.org.batch([
      { email: a, listIds: [ctx.list] },
      { email: b, listIds: [ctx.list], overwrite: true },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { index: 0, email: a, status: 'failed', code: 'SUPPRESSED_EMAIL', message: expect.any(String), suppressionReason: 'bounced' },
      { index: 1, email: b, status: 'created', id: expect.any(String) },
    ]);
    expect((await ctx.org.read(b))?.suppressed).toEqual({ reason: 'unsubscribed' });
  });
});
