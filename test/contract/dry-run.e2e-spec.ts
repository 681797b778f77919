import type { Response } from 'supertest';
import { expectFailure, uniqueEmail, useOrgWithList } from './helpers';
import { adminKey } from './lifecycle-helpers';

/** Request-level error in a dry run: the body of docs/api.md#request-level-errors; a `dryRun: true` beside it is tolerated (#dry-run: the body carries `"dryRun": true`). */
function expectRequestError(res: Response, status: number, code: string): void {
  const { dryRun, ...rest } = res.body ?? {};
  expect({ status: res.status, body: rest }).toEqual({
    status,
    body: { request_id: res.headers['x-request-id'], error: { code, message: expect.any(String) } },
  });
  expect([undefined, true]).toContain(dryRun);
}

/** docs/api.md#dry-run: same answer as the real call, `dryRun: true`, no id on would-be created, nothing written. */
describe('dry run on POST /api/v2/contacts', () => {
  const ctx = useOrgWithList();

  it('would-be created → 201 { request_id, email, status: "created", dryRun: true } without id; nothing written', async () => {
    const e = uniqueEmail();
    const res = await ctx.org.postContact({ email: ` ${e.toUpperCase()}`, listIds: [ctx.list], fields: { city: 'X' } }, { dryRun: true });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 201,
      body: { request_id: res.headers['x-request-id'], email: e, status: 'created', dryRun: true },
    });
    expect(await ctx.org.read(e)).toBeNull();
    // the real call afterwards still creates
    expect((await ctx.org.postContact({ email: e, listIds: [ctx.list] })).status).toBe(201);
  });

  it('would-be updated → 200 with id, changedFields, addedListIds, dryRun: true; nothing written', async () => {
    const l2 = await ctx.org.list('Two');
    const e = uniqueEmail();
    const created = await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'A' } });
    const before = await ctx.org.read(e);
    const res = await ctx.org.postContact({ email: e, listIds: [l2], fields: { city: 'B', firstName: 'F' }, overwrite: true }, { dryRun: true });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        request_id: res.headers['x-request-id'],
        id: created.body.id,
        email: e,
        status: 'updated',
        changedFields: ['city', 'firstName'],
        addedListIds: [l2],
        dryRun: true,
      },
    });
    expect(await ctx.org.read(e)).toEqual(before);
  });

  it('would-be unchanged → 200 with id and dryRun: true', async () => {
    const e = uniqueEmail();
    const created = await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'A' } });
    const res = await ctx.org.postContact({ email: e, listIds: [ctx.list], fields: { city: 'A' }, overwrite: true }, { dryRun: true });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { request_id: res.headers['x-request-id'], id: created.body.id, email: e, status: 'unchanged', dryRun: true },
    });
  });

  it('dry-run failures: same code, HTTP status and body as the real call, plus dryRun: true', async () => {
    await ctx.org.field('plan', 'text', { required: true });
    const archived = await ctx.org.list('Old', true);
    const existing = uniqueEmail();
    await ctx.org.postContact({ email: existing, listIds: [ctx.list], fields: { plan: 'x' } });
    const suppressed = uniqueEmail();
    await ctx.org.suppress(suppressed, 'bounced');
    const cases: Array<[unknown, string, string | null, Record<string, unknown>]> = [
      [{ email: 'nope', listIds: [ctx.list] }, 'INVALID_EMAIL', 'nope', {}],
      [{ email: null, listIds: [ctx.list] }, 'INVALID_EMAIL', null, {}],
      [{ email: 'a@example.com', listIds: [] }, 'EMPTY_LIST_IDS', 'a@example.com', {}],
      [{ email: 'a@example.com', listIds: Array(21).fill(ctx.list) }, 'TOO_MANY_LIST_IDS', 'a@example.com', {}],
      [{ email: 'a@example.com', listIds: [archived, archived] }, 'INVALID_LIST', 'a@example.com', { invalidListIds: [archived] }],
      [{ email: 'a@example.com', listIds: [ctx.list], fields: { x: 1 } }, 'UNKNOWN_FIELD', 'a@example.com', {}],
      [{ email: 'a@example.com', listIds: [ctx.list], fields: { city: 1 } }, 'FIELD_TYPE_MISMATCH', 'a@example.com', {}],
      [{ email: 'a@example.com', listIds: [ctx.list], fields: { plan: null } }, 'REQUIRED_FIELD_MISSING', 'a@example.com', {}],
      [{ email: suppressed, listIds: [ctx.list], fields: { plan: 'p' } }, 'SUPPRESSED_EMAIL', suppressed, { suppressionReason: 'bounced' }],
      [{ email: existing, listIds: [ctx.list] }, 'DUPLICATE_EMAIL', existing, {}],
      [{ email: 'a@example.com', listIds: [ctx.list] }, 'REQUIRED_FIELD_MISSING', 'a@example.com', {}],
    ];
    for (const [body, code, email, extra] of cases) {
      const dry = await ctx.org.postContact(body, { dryRun: true });
      expectFailure(dry, code, email, extra, { dryRun: true });
      const real = await ctx.org.postContact(body);
      expectFailure(real, code, email, extra);
    }
  });

  it('suppressed + absent + overwrite: dry run answers created without id and writes nothing', async () => {
    const e = uniqueEmail();
    await ctx.org.suppress(e, 'unsubscribed');
    const res = await ctx.org.postContact({ email: e, listIds: [ctx.list], overwrite: true }, { dryRun: true });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ request_id: res.headers['x-request-id'], email: e, status: 'created', dryRun: true });
    expect(await ctx.org.read(e)).toBeNull();
  });

  it('dry run applies defaults the same way: a would-be update by default is "updated" with the key', async () => {
    const e = uniqueEmail();
    await ctx.org.postContact({ email: e, listIds: [ctx.list] });
    await ctx.org.field('plan', 'text', { required: true, defaultValue: 'free' });
    const res = await ctx.org.postContact({ email: e, listIds: [ctx.list], overwrite: true }, { dryRun: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'updated', changedFields: ['plan'], addedListIds: [], dryRun: true });
    expect((await ctx.org.read(e))?.fields).toEqual({});
  });

  it('request-level errors are the same in a dry run', async () => {
    expectRequestError(await ctx.org.postRaw('/api/v2/contacts?dryRun=true', '[]'), 400, 'INVALID_REQUEST');
    expectRequestError(await ctx.org.postContact({ email: 'a@example.com', listIds: null }, { dryRun: true }), 400, 'INVALID_REQUEST');
    expectRequestError(await ctx.t.http().post('/api/v2/contacts?dryRun=true').set('Content-Type', 'application/json').send('{}'), 401, 'INVALID_API_KEY');
  });

  it('the real call answers no dryRun flag', async () => {
    const e = uniqueEmail();
    const res = await ctx.org.postContact({ email: e, listIds: [ctx.list] });
    expect(res.body).not.toHaveProperty('dryRun');
    const bad = await ctx.org.postContact({ email: 'x', listIds: [ctx.list] });
    expect(bad.body).not.toHaveProperty('dryRun');
  });
});

describe('dry run on POST /api/v2/contacts/batch', () => {
  const ctx = useOrgWithList();

  function strip(res: Response) {
    return {
      status: res.status,
      results: res.body.results?.map(({ id: _id, ...rest }: Record<string, unknown>) => rest),
      summary: res.body.summary,
    };
  }

  it('answers what the real call answers, with dryRun: true, no id on would-be created rows, nothing written', async () => {
    const l2 = await ctx.org.list('Two');
    const upd = uniqueEmail();
    const same = uniqueEmail();
    const dup = uniqueEmail();
    await ctx.org.postContact({ email: upd, listIds: [ctx.list], fields: { city: 'A' } });
    await ctx.org.postContact({ email: same, listIds: [ctx.list], fields: { city: 'S' } });
    await ctx.org.postContact({ email: dup, listIds: [ctx.list] });
    const fresh = uniqueEmail();
    const rows = [
      { email: fresh, listIds: [ctx.list], fields: { firstName: 'N' } },
      { email: upd, listIds: [l2], fields: { city: 'B' }, overwrite: true },
      { email: same, listIds: [ctx.list], fields: { city: 'S' }, overwrite: true },
      { email: dup, listIds: [ctx.list] },
      { email: fresh.toUpperCase(), listIds: [ctx.list] },
      { email: 'bad', listIds: [ctx.list] },
    ];
    const beforeUpd = await ctx.org.read(upd);
    const dry = await ctx.org.batch(rows, { dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body.dryRun).toBe(true);
    expect(dry.body.request_id).toBe(dry.headers['x-request-id']);
    expect(dry.body.results[0]).toEqual({ index: 0, email: fresh, status: 'created' });
    expect(dry.body.results[1]).toEqual({
      index: 1,
      email: upd,
      status: 'updated',
      id: beforeUpd?.id,
      changedFields: ['city'],
      addedListIds: [l2],
    });
    expect(dry.body.results[2]).toEqual({ index: 2, email: same, status: 'unchanged', id: expect.any(String) });
    expect(await ctx.org.read(fresh)).toBeNull();
    expect(await ctx.org.read(upd)).toEqual(beforeUpd);

    const real = await ctx.org.batch(rows);
    expect(real.body).not.toHaveProperty('dryRun');
    expect(strip(dry)).toEqual(strip(real));
    expect(real.body.summary).toEqual({ created: 1, updated: 1, unchanged: 1, failed: 3 });
    expect(await ctx.org.read(fresh)).not.toBeNull();
  });

  it('request-level errors are the same in a dry run', async () => {
    expectRequestError(await ctx.org.postBatch({ contacts: [] }, { dryRun: true }), 400, 'INVALID_REQUEST');
    expectRequestError(await ctx.org.batch(Array.from({ length: 51 }, () => ({})), { dryRun: true }), 400, 'BATCH_LIMIT_EXCEEDED');
    const res = await ctx.org.batch([{ email: uniqueEmail(), listIds: [ctx.list] }, { email: 'a@example.com', fields: null }], { dryRun: true });
    expectRequestError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toContain('contacts[1].fields');
  });
});

/** docs/api.md#dry-run: only the two contact POSTs offer it; elsewhere `?dryRun` is refused and nothing is done. */
describe('?dryRun on a write route that offers no dry run', () => {
  const ctx = useOrgWithList();

  it('erase, delete and list creation asked "as a dry run" answer 400 INVALID_REQUEST and change nothing', async () => {
    const e = uniqueEmail('dry-elsewhere');
    expect((await ctx.org.postContact({ email: e, listIds: [ctx.list] })).status).toBe(201);
    const before = await ctx.org.read(e);
    const admin = `Bearer ${await adminKey(ctx.org)}`;
    const http = () => ctx.org.t.http();
    const path = `/api/v2/contacts/${encodeURIComponent(e)}`;
    for (const value of ['true', 'false', 'yes']) {
      expectRequestError(await http().post(`${path}/erase?dryRun=${value}`).set('Authorization', admin), 400, 'INVALID_REQUEST');
      expectRequestError(await http().delete(`${path}?dryRun=${value}`).set('Authorization', `Bearer ${ctx.org.key}`), 400, 'INVALID_REQUEST');
    }
    // The same parameter, percent-encoded (the contact POSTs read `dry%52un=true` as a dry run): refused too.
    for (const name of ['dry%52un', '%64ryRun', 'dryR%75n']) {
      expectRequestError(await http().post(`${path}/erase?${name}=true`).set('Authorization', admin), 400, 'INVALID_REQUEST');
      expectRequestError(await http().delete(`${path}?a=%20&${name}=true`).set('Authorization', `Bearer ${ctx.org.key}`), 400, 'INVALID_REQUEST');
    }
    const dry = await http().post('/api/v2/contacts?dry%52un=true').set('Authorization', `Bearer ${ctx.org.key}`).send({ email: uniqueEmail(), listIds: [ctx.list] });
    expect(dry.body.dryRun).toBe(true);
    expect(await ctx.org.read(e)).toEqual(before);
    const listsBefore = (await ctx.org.get('/api/v2/lists')).body;
    const created = await http().post('/api/v2/lists?dryRun=true').set('Authorization', admin).send({ name: 'Not made' });
    expectRequestError(created, 400, 'INVALID_REQUEST');
    expect(created.body.error.message).toContain('dryRun');
    expect((await ctx.org.get('/api/v2/lists')).body.lists).toEqual(listsBefore.lists);
    // Without the parameter the same calls act, and reads ignore it.
    expect((await ctx.org.get(`${path}?dryRun=true`)).status).toBe(200);
    expect((await http().post(`${path}/erase`).set('Authorization', admin)).status).toBe(200);
    expect(await ctx.org.read(e)).toBeNull();
  });
});
