import { expectBatch, expectRequestError, failedRow, okRow, Org, sorted, uniqueEmail, useOrgWithList } from './helpers';

/** POST /api/v2/contacts/batch (docs/api.md#endpoints, #rules-and-codes). */
describe('POST /api/v2/contacts/batch — results', () => {
  const ctx = useOrgWithList();

  it('answers 200 { request_id, results, summary } with rows in input order, every code side by side', async () => {
    const [l2] = await ctx.org.lists(1);
    const archived = await ctx.org.list('Archived', true);
    const existing = uniqueEmail('existing');
    const same = uniqueEmail('same');
    const suppressed = uniqueEmail('suppressed');
    expect((await ctx.org.postContact({ email: existing, listIds: [ctx.list], fields: { city: 'Paris' } })).status).toBe(201);
    expect((await ctx.org.postContact({ email: same, listIds: [ctx.list], fields: { city: 'Rome' } })).status).toBe(201);
    await ctx.org.suppress(suppressed, 'complained');
    // defined after the contacts exist: they have no stored value for it
    await ctx.org.field('plan', 'text', { required: true, defaultValue: 'free' });
    await ctx.org.field('age', 'number');
    const fresh = uniqueEmail('fresh');
    const dupe = uniqueEmail('dupe');

    const res = await ctx.org.batch([
      { email: ` ${fresh.toUpperCase()} `, listIds: [ctx.list] }, // 0 created
      { email: 'nope', listIds: [ctx.list] }, // 1 INVALID_EMAIL
      { email: 12, listIds: [ctx.list] }, // 2 INVALID_EMAIL, email null
      { email: dupe, listIds: [ctx.list] }, // 3 created
      { email: dupe.toUpperCase(), listIds: [ctx.list] }, // 4 DUPLICATE_IN_REQUEST
      { email: uniqueEmail(), listIds: [] }, // 5 EMPTY_LIST_IDS
      { email: uniqueEmail(), listIds: Array(21).fill(ctx.list) }, // 6 TOO_MANY_LIST_IDS
      { email: uniqueEmail(), listIds: [ctx.list, archived, archived] }, // 7 INVALID_LIST
      { email: uniqueEmail(), listIds: [ctx.list], fields: { nope: 1 } }, // 8 UNKNOWN_FIELD
      { email: uniqueEmail(), listIds: [ctx.list], fields: { age: '12' } }, // 9 FIELD_TYPE_MISMATCH
      { email: uniqueEmail(), listIds: [ctx.list], fields: { plan: null } }, // 10 REQUIRED_FIELD_MISSING
      { email: suppressed, listIds: [ctx.list] }, // 11 SUPPRESSED_EMAIL
      { email: existing, listIds: [ctx.list] }, // 12 DUPLICATE_EMAIL
      { email: existing, listIds: [l2], fields: { city: 'Lyon' }, overwrite: true }, // 13 DUPLICATE_IN_REQUEST
      { email: same, listIds: [ctx.list], fields: { city: 'Rome' }, overwrite: true }, // 14 updated (plan default applied)
    ]);
    const bodyEmails = res.body.results?.map((r: { email: string }) => r.email);
    expect(bodyEmails?.[5]).toMatch(/@example\.com$/);
    expectBatch(res, [
      okRow(0, 'created', fresh),
      failedRow(1, 'INVALID_EMAIL', 'nope'),
      failedRow(2, 'INVALID_EMAIL', null),
      okRow(3, 'created', dupe),
      failedRow(4, 'DUPLICATE_IN_REQUEST', dupe),
      failedRow(5, 'EMPTY_LIST_IDS', bodyEmails?.[5]),
      failedRow(6, 'TOO_MANY_LIST_IDS', bodyEmails?.[6]),
      failedRow(7, 'INVALID_LIST', bodyEmails?.[7], { invalidListIds: [archived] }),
      failedRow(8, 'UNKNOWN_FIELD', bodyEmails?.[8]),
      failedRow(9, 'FIELD_TYPE_MISMATCH', bodyEmails?.[9]),
      failedRow(10, 'REQUIRED_FIELD_MISSING', bodyEmails?.[10]),
      failedRow(11, 'SUPPRESSED_EMAIL', suppressed, { suppressionReason: 'complained' }),
      failedRow(12, 'DUPLICATE_EMAIL', existing),
      failedRow(13, 'DUPLICATE_IN_REQUEST', existing),
      okRow(14, 'updated', same, { changedFields: ['plan'], addedListIds: [] }),
    ]);
    expect(await ctx.org.read(fresh)).toMatchObject({ id: res.body.results[0].id, fields: { plan: 'free' } });
    expect(await ctx.org.read(dupe)).toMatchObject({ id: res.body.results[3].id });
    expect(await ctx.org.read(existing)).toMatchObject({ listIds: [ctx.list] });
    expect((await ctx.org.read(existing))?.fields).toEqual({ city: 'Paris' });
    expect(await ctx.org.read(suppressed)).toBeNull();
    expect(await ctx.org.read(same)).toMatchObject({ fields: { city: 'Rome', plan: 'free' } });
  });

  it('an updated row carries changedFields (sorted) and addedListIds; unchanged row has id', async () => {
    const l2 = await ctx.org.list('Second');
    const a = uniqueEmail();
    const b = uniqueEmail();
    await ctx.org.postContact({ email: a, listIds: [ctx.list], fields: { lastName: 'L', firstName: 'F' } });
    await ctx.org.postContact({ email: b, listIds: [ctx.list], fields: { city: 'X' } });
    const ida = (await ctx.org.read(a))?.id;
    const idb = (await ctx.org.read(b))?.id;
    const res = await ctx.org.batch([
      { email: a, listIds: [ctx.list, l2], fields: { lastName: 'L2', firstName: 'F2', city: 'C' }, overwrite: true },
      { email: b, listIds: [ctx.list], fields: { city: 'X' }, overwrite: true },
    ]);
    expectBatch(res, [
      { index: 0, email: a, status: 'updated', id: ida, changedFields: ['city', 'firstName', 'lastName'], addedListIds: [l2] },
      { index: 1, email: b, status: 'unchanged', id: idb },
    ]);
  });

  it('50 rows are accepted and answered in order with their index', async () => {
    const emails = Array.from({ length: 50 }, () => uniqueEmail());
    const res = await ctx.org.batch(emails.map((email) => ({ email, listIds: [ctx.list] })));
    expectBatch(
      res,
      emails.map((e, i) => okRow(i, 'created', e)),
    );
    expect(new Set(res.body.results.map((r: { id: string }) => r.id)).size).toBe(50);
    expect((await ctx.org.read(emails[49]))?.id).toBe(res.body.results[49].id);
  });

  it('a batch whose rows all fail still answers 200 and writes nothing', async () => {
    const e = uniqueEmail();
    const res = await ctx.org.batch([{ email: e, listIds: [] }, { email: 'x' }]);
    expectBatch(res, [failedRow(0, 'EMPTY_LIST_IDS', e), failedRow(1, 'INVALID_EMAIL', 'x')]);
    expect(await ctx.org.read(e)).toBeNull();
  });

  it('a failed row does not stop the successful rows from being written', async () => {
    const ok1 = uniqueEmail();
    const ok2 = uniqueEmail();
    const res = await ctx.org.batch([
      { email: ok1, listIds: [ctx.list] },
      { email: uniqueEmail(), listIds: [ctx.list], fields: { firstName: false } },
      { email: ok2, listIds: [ctx.list] },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.summary).toEqual({ created: 2, updated: 0, unchanged: 0, failed: 1 });
    expect(await ctx.org.read(ok1)).not.toBeNull();
    expect(await ctx.org.read(ok2)).not.toBeNull();
  });

  it('the first of two rows with one email is processed, the second fails, whatever the case or spacing', async () => {
    const e = uniqueEmail();
    const res = await ctx.org.batch([
      { email: `\t${e.toUpperCase()}`, listIds: [ctx.list], fields: { firstName: 'One' } },
      { email: `${e} `, listIds: [ctx.list], fields: { firstName: 'Two' } },
      { email: e, listIds: [ctx.list], fields: { firstName: 'Three' }, overwrite: true },
    ]);
    expectBatch(res, [okRow(0, 'created', e), failedRow(1, 'DUPLICATE_IN_REQUEST', e), failedRow(2, 'DUPLICATE_IN_REQUEST', e)]);
    expect((await ctx.org.read(e))?.fields).toEqual({ firstName: 'One' });
  });

  it('invalidListIds in a row is unique and in order of first appearance', async () => {
    const other = await Org.create(ctx.t, 'Other');
    const foreign = await other.list();
    const archived = await ctx.org.list('Old', true);
    const e = uniqueEmail();
    const res = await ctx.org.batch([{ email: e, listIds: ['zzz', foreign, ctx.list, archived, 'zzz', foreign] }]);
    expectBatch(res, [failedRow(0, 'INVALID_LIST', e, { invalidListIds: ['zzz', foreign, archived] })]);
  });

  it('a retried batch reports DUPLICATE_EMAIL for created rows and unchanged for updated rows', async () => {
    const a = uniqueEmail();
    const b = uniqueEmail();
    await ctx.org.postContact({ email: b, listIds: [ctx.list] });
    const body = [
      { email: a, listIds: [ctx.list] },
      { email: b, listIds: [ctx.list], fields: { city: 'Oslo' }, overwrite: true },
    ];
    const first = await ctx.org.batch(body);
    expectBatch(first, [okRow(0, 'created', a), okRow(1, 'updated', b, { changedFields: ['city'], addedListIds: [] })]);
    const second = await ctx.org.batch(body);
    expectBatch(second, [failedRow(0, 'DUPLICATE_EMAIL', a), okRow(1, 'unchanged', b)]);
    expect(second.body.results[1].id).toBe(first.body.results[1].id);
  });

  it('concurrent batches creating the same email create one contact', async () => {
    const e = uniqueEmail();
    const responses = await Promise.all(Array.from({ length: 4 }, () => ctx.org.batch([{ email: e, listIds: [ctx.list] }])));
    const statuses = responses.map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const rows = responses.map((r) => r.body.results[0]);
    expect(sorted(rows.map((r: { status: string; code?: string }) => r.code ?? r.status))).toEqual([
      'DUPLICATE_EMAIL',
      'DUPLICATE_EMAIL',
      'DUPLICATE_EMAIL',
      'created',
    ]);
  });
});

describe('POST /api/v2/contacts/batch — request-level errors', () => {
  const ctx = useOrgWithList();

  it.each([
    ['an empty object (contacts missing)', '{}'],
    ['contacts empty', '{"contacts":[]}'],
    ['contacts null', '{"contacts":null}'],
    ['contacts an object', '{"contacts":{"0":{"email":"a@example.com"}}}'],
    ['contacts a string', '{"contacts":"a@example.com"}'],
    ['contacts a number', '{"contacts":3}'],
    ['a bare array of contacts', '[{"email":"a@example.com","listIds":["x"]}]'],
    ['a bare contact object', '{"email":"a@example.com","listIds":["x"]}'],
    ['null', 'null'],
    ['a number', '1'],
    ['a string', '"contacts"'],
    ['an empty body', ''],
    ['malformed JSON', '{"contacts": ['],
  ])('%s → 400 INVALID_REQUEST', async (_name, raw) => {
    expectRequestError(await ctx.org.postRaw('/api/v2/contacts/batch', raw), 400, 'INVALID_REQUEST');
  });

  it('a key besides contacts → 400 INVALID_REQUEST, nothing written', async () => {
    const e = uniqueEmail();
    const res = await ctx.org.postBatch({ contacts: [{ email: e, listIds: [ctx.list] }], overwrite: true });
    expectRequestError(res, 400, 'INVALID_REQUEST');
    expect(await ctx.org.read(e)).toBeNull();
  });

  it('51 valid rows → 400 BATCH_LIMIT_EXCEEDED, nothing written', async () => {
    const emails = Array.from({ length: 51 }, () => uniqueEmail());
    const res = await ctx.org.batch(emails.map((email) => ({ email, listIds: [ctx.list] })));
    expectRequestError(res, 400, 'BATCH_LIMIT_EXCEEDED');
    expect(await ctx.org.read(emails[0])).toBeNull();
  });

  it.each<[string, () => unknown]>([
    ['numbers', () => 7],
    ['nulls', () => null],
    ['objects with listIds null', () => ({ email: 'a@example.com', listIds: null })],
    ['objects with an unknown key', () => ({ email: 'a@example.com', bogus: true })],
    ['arrays', () => []],
  ])('51 rows that are %s → BATCH_LIMIT_EXCEEDED (counted before anything else)', async (_name, row) => {
    expectRequestError(await ctx.org.batch(Array.from({ length: 51 }, row)), 400, 'BATCH_LIMIT_EXCEEDED');
  });

  it('1000 rows → BATCH_LIMIT_EXCEEDED', async () => {
    expectRequestError(await ctx.org.batch(Array.from({ length: 1000 }, () => ({}))), 400, 'BATCH_LIMIT_EXCEEDED');
  });

  it.each([
    ['listIds null', { listIds: null }, 'contacts[3].listIds'],
    ['listIds a string', { listIds: 'abc' }, 'contacts[3].listIds'],
    ['listIds holding a number', { listIds: [1] }, 'contacts[3].listIds'],
    ['fields null', { fields: null }, 'contacts[3].fields'],
    ['fields an array', { fields: ['firstName'] }, 'contacts[3].fields'],
    ['overwrite null', { overwrite: null }, 'contacts[3].overwrite'],
    ['overwrite a string', { overwrite: 'yes' }, 'contacts[3].overwrite'],
    ['an unknown key', { mail: 'x' }, 'contacts[3]'],
  ])('row 3 with %s → 400 INVALID_REQUEST naming %s; rows 0-2 are not written', async (_name, patch, path) => {
    const emails = Array.from({ length: 5 }, () => uniqueEmail());
    const rows: Record<string, unknown>[] = emails.map((email) => ({ email, listIds: [ctx.list] }));
    rows[3] = { ...rows[3], ...patch };
    const res = await ctx.org.batch(rows);
    expectRequestError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toContain(path);
    for (const e of emails) expect(await ctx.org.read(e)).toBeNull();
  });

  it('an unknown key in row 4 is named with its path (contacts[4].mail)', async () => {
    const rows: Record<string, unknown>[] = Array.from({ length: 5 }, () => ({ email: uniqueEmail(), listIds: [ctx.list] }));
    rows[4].mail = 'x';
    const res = await ctx.org.batch(rows);
    expectRequestError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toMatch(/contacts\[4\]/);
    expect(res.body.error.message).toContain('mail');
  });

  it.each([
    ['a number', 5],
    ['null', null],
    ['a string', 'a@example.com'],
    ['an array', [{ email: 'a@example.com' }]],
  ])('row 2 that is %s → 400 INVALID_REQUEST naming contacts[2]', async (_name, row) => {
    const e = uniqueEmail();
    const res = await ctx.org.batch([{ email: e, listIds: [ctx.list] }, { email: uniqueEmail(), listIds: [ctx.list] }, row]);
    expectRequestError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toContain('contacts[2]');
    expect(await ctx.org.read(e)).toBeNull();
  });

  it('a shape error wins over per-contact errors in earlier rows (still request-level)', async () => {
    const res = await ctx.org.batch([{ email: 'bad', listIds: [] }, { email: uniqueEmail(), listIds: [ctx.list], overwrite: 'no' }]);
    expectRequestError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toContain('contacts[1].overwrite');
  });
});
