import { bootApp, expectFailure, expectSuccess, Org, sorted, uniqueEmail } from './helpers';

/** Contract 6 and 11 (changedFields / addedListIds), 12 (null on empty field). */
describe('updates (overwrite: true)', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeEach(async () => ({ org, list } = await Org.withList(app.t)));

  async function create(fields: Record<string, unknown>, listIds = [list]): Promise<{ email: string; id: string }> {
    const email = uniqueEmail();
    const id = expectSuccess(await org.postContact({ email, listIds, fields }), 'created', email);
    return { email, id };
  }

  it('fields merge: given keys are set, null clears, keys not given keep their value', async () => {
    await org.field('score', 'number');
    await org.field('tier', 'text');
    const c = await create({ firstName: 'Ada', lastName: 'Lovelace', city: 'London', score: 1, tier: 'gold' });
    const res = await org.postContact({ email: c.email, listIds: [list], fields: { firstName: 'Augusta', lastName: null, score: 2 }, overwrite: true });
    expectSuccess(res, 'updated', c.email, { changedFields: ['firstName', 'lastName', 'score'], addedListIds: [] });
    expect(res.body.id).toBe(c.id);
    const stored = await org.read(c.email);
    expect(stored?.fields).toEqual({ firstName: 'Augusta', city: 'London', score: 2, tier: 'gold' });
    expect(stored?.id).toBe(c.id);
  });

  it('changedFields lists only the keys whose value changed, sorted', async () => {
    await org.field('zeta', 'text');
    await org.field('alpha', 'number');
    const c = await create({ city: 'Oslo', company: 'Acme', zeta: 'z' });
    const res = await org.postContact({
      email: c.email,
      listIds: [list],
      fields: { zeta: 'zz', company: 'Acme', city: 'Bergen', alpha: 1, phone: null },
      overwrite: true,
    });
    expectSuccess(res, 'updated', c.email, { changedFields: ['alpha', 'city', 'zeta'], addedListIds: [] });
  });

  it('listIds add memberships and never remove one; addedListIds lists only the new ones', async () => {
    const [l2, l3] = await org.lists(2);
    const c = await create({}, [list, l2]);
    const res = await org.postContact({ email: c.email, listIds: [l3, l2], overwrite: true });
    expectSuccess(res, 'updated', c.email, { changedFields: [], addedListIds: [l3] });
    expect(sorted((await org.read(c.email))?.listIds ?? [])).toEqual(sorted([list, l2, l3]));

    const res2 = await org.postContact({ email: c.email, listIds: [list], overwrite: true });
    expectSuccess(res2, 'unchanged', c.email);
    expect(sorted((await org.read(c.email))?.listIds ?? [])).toEqual(sorted([list, l2, l3]));
  });

  it('addedListIds holds several new lists (as a set)', async () => {
    const [l2, l3] = await org.lists(2);
    const c = await create({});
    const res = await org.postContact({ email: c.email, listIds: [l3, list, l2], fields: { city: 'X' }, overwrite: true });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('updated');
    expect(res.body.changedFields).toEqual(['city']);
    expect(sorted(res.body.addedListIds)).toEqual(sorted([l2, l3]));
  });

  it('nothing changes → 200 unchanged with the id, and the stored contact is identical', async () => {
    await org.field('birthday', 'date');
    await org.field('score', 'number');
    await org.field('vip', 'boolean');
    const c = await create({ firstName: 'Ada', birthday: '1815-12-10', score: 3.5, vip: false });
    const before = await org.read(c.email);
    const res = await org.postContact({
      email: ` ${c.email.toUpperCase()}`,
      listIds: [list, list],
      fields: { firstName: 'Ada', birthday: '1815-12-10', score: 3.5, vip: false },
      overwrite: true,
    });
    expect(expectSuccess(res, 'unchanged', c.email)).toBe(c.id);
    expect(await org.read(c.email)).toEqual(before);
  });

  it('null for a field that is already empty changes nothing (unchanged)', async () => {
    await org.field('score', 'number');
    const c = await create({ firstName: 'Ada' });
    const res = await org.postContact({ email: c.email, listIds: [list], fields: { lastName: null, score: null }, overwrite: true });
    expectSuccess(res, 'unchanged', c.email);
    expect((await org.read(c.email))?.fields).toEqual({ firstName: 'Ada' });
  });

  it('an update with no fields and known lists is unchanged', async () => {
    const c = await create({ city: 'Paris' });
    expectSuccess(await org.postContact({ email: c.email, listIds: [list], overwrite: true }), 'unchanged', c.email);
    expectSuccess(await org.postContact({ email: c.email, listIds: [list], fields: {}, overwrite: true }), 'unchanged', c.email);
  });

  it('a retried update answers unchanged', async () => {
    const l2 = await org.list('Two');
    const c = await create({ city: 'Paris' });
    const body = { email: c.email, listIds: [l2], fields: { city: 'Nice' }, overwrite: true };
    expectSuccess(await org.postContact(body), 'updated', c.email, { changedFields: ['city'], addedListIds: [l2] });
    expectSuccess(await org.postContact(body), 'unchanged', c.email);
  });

  it('defaults are not applied to non-required fields on update', async () => {
    const c = await create({});
    await org.field('plan', 'text', { defaultValue: 'free' });
    expectSuccess(await org.postContact({ email: c.email, listIds: [list], overwrite: true }), 'unchanged', c.email);
    expect((await org.read(c.email))?.fields).toEqual({});
  });

  it('update: a required field with no stored value gets its default (a change like any other)', async () => {
    const c = await create({ city: 'Rome' });
    await org.field('plan', 'text', { required: true, defaultValue: 'free' });
    const res = await org.postContact({ email: c.email, listIds: [list], overwrite: true });
    expectSuccess(res, 'updated', c.email, { changedFields: ['plan'], addedListIds: [] });
    expect((await org.read(c.email))?.fields).toEqual({ city: 'Rome', plan: 'free' });
    expectSuccess(await org.postContact({ email: c.email, listIds: [list], overwrite: true }), 'unchanged', c.email);
  });

  it('update: the default does not replace a value the input sets', async () => {
    const c = await create({});
    await org.field('plan', 'text', { required: true, defaultValue: 'free' });
    const res = await org.postContact({ email: c.email, listIds: [list], fields: { plan: 'pro' }, overwrite: true });
    expectSuccess(res, 'updated', c.email, { changedFields: ['plan'], addedListIds: [] });
    expect((await org.read(c.email))?.fields).toEqual({ plan: 'pro' });
  });

  it('update: a required field with no stored value and no default → 400 REQUIRED_FIELD_MISSING, nothing changes', async () => {
    const c = await create({ city: 'Rome' });
    await org.field('plan', 'text', { required: true });
    const before = await org.read(c.email);
    const res = await org.postContact({ email: c.email, listIds: [list], fields: { city: 'Milan' }, overwrite: true });
    expectFailure(res, 'REQUIRED_FIELD_MISSING', c.email);
    expect(await org.read(c.email)).toEqual(before);
  });

  it('update: a required field with a stored value may be omitted', async () => {
    await org.field('plan', 'text', { required: true });
    const c = await create({ plan: 'pro' });
    const res = await org.postContact({ email: c.email, listIds: [list], fields: { city: 'Milan' }, overwrite: true });
    expectSuccess(res, 'updated', c.email, { changedFields: ['city'], addedListIds: [] });
    expect((await org.read(c.email))?.fields).toEqual({ plan: 'pro', city: 'Milan' });
  });

  it('update: null for a required field with a stored value → REQUIRED_FIELD_MISSING, value kept', async () => {
    await org.field('plan', 'text', { required: true, defaultValue: 'free' });
    const c = await create({ plan: 'pro' });
    const res = await org.postContact({ email: c.email, listIds: [list], fields: { plan: null }, overwrite: true });
    expectFailure(res, 'REQUIRED_FIELD_MISSING', c.email);
    expect((await org.read(c.email))?.fields).toEqual({ plan: 'pro' });
  });

  it('a failed update (FIELD_TYPE_MISMATCH) changes nothing, not even lists', async () => {
    const l2 = await org.list('Two');
    const c = await create({ city: 'Rome' });
    const before = await org.read(c.email);
    expectFailure(
      await org.postContact({ email: c.email, listIds: [l2], fields: { city: 'Milan', firstName: 3 }, overwrite: true }),
      'FIELD_TYPE_MISMATCH',
      c.email,
    );
    expect(await org.read(c.email)).toEqual(before);
  });

  it('an update adding a list that is archived → INVALID_LIST, nothing changes', async () => {
    const archived = await org.list('Old', true);
    const c = await create({ city: 'Rome' });
    const before = await org.read(c.email);
    expectFailure(
      await org.postContact({ email: c.email, listIds: [archived], fields: { city: 'Milan' }, overwrite: true }),
      'INVALID_LIST',
      c.email,
      { invalidListIds: [archived] },
    );
    expect(await org.read(c.email)).toEqual(before);
  });

  it('overwrite: true on an absent contact creates it (201)', async () => {
    const e = uniqueEmail();
    expectSuccess(await org.postContact({ email: e, listIds: [list], fields: { city: 'X' }, overwrite: true }), 'created', e);
  });

  it('concurrent identical updates: one updated, the rest unchanged', async () => {
    const c = await create({ city: 'A' });
    const body = { email: c.email, listIds: [list], fields: { city: 'B' }, overwrite: true };
    const responses = await Promise.all(Array.from({ length: 4 }, () => org.postContact(body)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(sorted(responses.map((r) => r.body.status))).toEqual(['unchanged', 'unchanged', 'unchanged', 'updated']);
  });

  it('addedListIds holds each new list once even when repeated in the input', async () => {
    const l2 = await org.list('Two');
    const e = uniqueEmail();
    await org.postContact({ email: e, listIds: [list] });
    const res = await org.postContact({ email: e, listIds: [l2, list, l2], overwrite: true });
    expectSuccess(res, 'updated', e, { changedFields: [], addedListIds: [l2] });
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

describe('suppression', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeEach(async () => ({ org, list } = await Org.withList(app.t)));

  it('suppressed existing contact without overwrite → 409 SUPPRESSED_EMAIL with reason; data untouched', async () => {
    const e = uniqueEmail();
    await org.postContact({ email: e, listIds: [list], fields: { city: 'A' } });
    await org.suppress(e, 'bounced');
    const before = await org.read(e);
    expect(before?.suppressed).toEqual({ reason: 'bounced' });
    const res = await org.postContact({ email: e, listIds: [list], fields: { city: 'B' } });
    expectFailure(res, 'SUPPRESSED_EMAIL', e, { suppressionReason: 'bounced' });
    expect(await org.read(e)).toEqual(before);
  });

  it('overwrite: true updates a suppressed contact and never lifts the suppression', async () => {
    const e = uniqueEmail();
    await org.postContact({ email: e, listIds: [list], fields: { city: 'A' } });
    await org.suppress(e, 'unsubscribed');
    const res = await org.postContact({ email: e, listIds: [list], fields: { city: 'B' }, overwrite: true });
    expectSuccess(res, 'updated', e, { changedFields: ['city'], addedListIds: [] });
    const stored = await org.read(e);
    expect(stored?.fields).toEqual({ city: 'B' });
    expect(stored?.suppressed).toEqual({ reason: 'unsubscribed' });
    // and again without overwrite: still suppressed
    expectFailure(await org.postContact({ email: e, listIds: [list] }), 'SUPPRESSED_EMAIL', e, { suppressionReason: 'unsubscribed' });
  });

  it('overwrite: true with nothing to change on a suppressed contact → unchanged, still suppressed', async () => {
    const e = uniqueEmail();
    await org.postContact({ email: e, listIds: [list], fields: { city: 'A' } });
    await org.suppress(e, 'complained');
    expectSuccess(await org.postContact({ email: e, listIds: [list], fields: { city: 'A' }, overwrite: true }), 'unchanged', e);
    expect((await org.read(e))?.suppressed).toEqual({ reason: 'complained' });
  });

  it('suppressed but absent + overwrite: true → 201 created and still suppressed', async () => {
    const e = uniqueEmail();
    await org.suppress(e, 'complained');
    const id = expectSuccess(await org.postContact({ email: e.toUpperCase(), listIds: [list], overwrite: true }), 'created', e);
    const stored = await org.read(e);
    expect(stored?.id).toBe(id);
    expect(stored?.suppressed).toEqual({ reason: 'complained' });
    expectFailure(await org.postContact({ email: e, listIds: [list] }), 'SUPPRESSED_EMAIL', e, { suppressionReason: 'complained' });
  });

  it('suppressed but absent without overwrite → 409 SUPPRESSED_EMAIL, no contact', async () => {
    const e = uniqueEmail();
    await org.suppress(e, 'bounced');
    expectFailure(await org.postContact({ email: e, listIds: [list], overwrite: false }), 'SUPPRESSED_EMAIL', e, { suppressionReason: 'bounced' });
    expect(await org.read(e)).toBeNull();
  });

  it("another organization's suppression does not apply here", async () => {
    const other = await Org.create(app.t, 'Other');
    const e = uniqueEmail();
    await other.suppress(e, 'bounced');
    expectSuccess(await org.postContact({ email: e, listIds: [list] }), 'created', e);
    expect((await org.read(e))?.suppressed).toBeNull();
  });

  it('batch: suppressed rows carry suppressionReason; overwrite rows create and stay suppressed', async () => {
    const a = uniqueEmail();
    const b = uniqueEmail();
    await org.suppress(a, 'bounced');
    await org.suppress(b, 'unsubscribed');
    const res = await org.batch([
      { email: a, listIds: [list] },
      { email: b, listIds: [list], overwrite: true },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { index: 0, email: a, status: 'failed', code: 'SUPPRESSED_EMAIL', message: expect.any(String), suppressionReason: 'bounced' },
      { index: 1, email: b, status: 'created', id: expect.any(String) },
    ]);
    expect((await org.read(b))?.suppressed).toEqual({ reason: 'unsubscribed' });
  });
});
