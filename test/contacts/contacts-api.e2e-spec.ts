import { MetricsService } from '../../src/metrics/metrics.service';
import { createCustomField, createList, createOrganization, suppress } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';
import { contactCount, membershipCount } from './contacts-helpers';
import { Org } from '../contract/helpers';

describe('contacts API', () => {
  const app = useTestApp();

  describe('POST /api/v2/contacts', () => {
    it('creates (201), then refuses a second create (409 DUPLICATE_EMAIL) without changing anything', async () => {
      const c = await Org.withList(app.t);
      const created = await c.org.postContact({ email: ' Ada@Example.COM ', listIds: [c.list], fields: { firstName: 'Ada' } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        request_id: created.headers['x-request-id'],
        id: expect.any(String),
        email: 'ada@example.com',
        status: 'created',
      });

      const again = await c.org.postContact({ email: 'ada@example.com', listIds: [c.list], fields: { firstName: 'Other' } });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        request_id: again.headers['x-request-id'],
        email: 'ada@example.com',
        status: 'failed',
        code: 'DUPLICATE_EMAIL',
        message: expect.any(String),
      });
      const read = await c.org.getContact('ada@example.com');
      expect(read.body.contact.fields).toEqual({ firstName: 'Ada' });
      expect(await contactCount(app.t, c.org.id)).toBe(1);
    });

    it('updates with overwrite (200, changedFields sorted, addedListIds), and a retry is unchanged', async () => {
      const c = await Org.withList(app.t);
      const second = await createList(app.t.prisma, c.org.id, 'Second');
      await createCustomField(app.t.prisma, c.org.id, { key: 'score', type: 'number' });
      const created = await c.org.postContact({ email: 'u@example.com', listIds: [c.list], fields: { firstName: 'A', city: 'X' } });

      const update = { email: 'U@example.com', listIds: [second.id, c.list], overwrite: true, fields: { score: 7, firstName: 'B', city: 'X' } };
      const updated = await c.org.postContact(update);
      expect(updated.status).toBe(200);
      expect(updated.body).toEqual({
        request_id: updated.headers['x-request-id'],
        id: created.body.id,
        email: 'u@example.com',
        status: 'updated',
        changedFields: ['firstName', 'score'],
        addedListIds: [second.id],
      });

      const retried = await c.org.postContact(update);
      expect(retried.status).toBe(200);
      expect(retried.body).toEqual({ request_id: retried.headers['x-request-id'], id: created.body.id, email: 'u@example.com', status: 'unchanged' });

      const read = await c.org.getContact('u@example.com');
      expect(read.body.contact.fields).toEqual({ firstName: 'B', city: 'X', score: 7 });
      expect([...read.body.contact.listIds].sort()).toEqual([c.list, second.id].sort());
    });

    it('per-contact failures: 400 with the normalized email, or null when email was not a string', async () => {
      const c = await Org.withList(app.t);
      const notString = await c.org.postContact({ email: 42, listIds: [c.list] });
      expect(notString.status).toBe(400);
      expect(notString.body).toMatchObject({ email: null, status: 'failed', code: 'INVALID_EMAIL' });
      const missing = await c.org.postContact({ listIds: [c.list] });
      expect(missing.body).toMatchObject({ email: null, code: 'INVALID_EMAIL' });
      const invalid = await c.org.postContact({ email: ' NOPE ', listIds: [c.list] });
      expect(invalid.body).toMatchObject({ email: 'nope', code: 'INVALID_EMAIL' });
      const empty = await c.org.postContact({ email: 'e@example.com', listIds: [] });
      expect([empty.status, empty.body.code]).toEqual([400, 'EMPTY_LIST_IDS']);
    });

    it('SUPPRESSED_EMAIL (409, with reason); overwrite creates or updates but never lifts the suppression', async () => {
      const c = await Org.withList(app.t);
      await suppress(app.t.prisma, c.org.id, 's@example.com', 'bounced');
      const refused = await c.org.postContact({ email: 'S@example.com', listIds: [c.list] });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'SUPPRESSED_EMAIL', suppressionReason: 'bounced', email: 's@example.com' });

      const created = await c.org.postContact({ email: 's@example.com', listIds: [c.list], overwrite: true, fields: { city: 'A' } });
      expect([created.status, created.body.status]).toEqual([201, 'created']);
      const updated = await c.org.postContact({ email: 's@example.com', listIds: [c.list], overwrite: true, fields: { city: 'B' } });
      expect(updated.body).toMatchObject({ status: 'updated', changedFields: ['city'] });

      const read = await c.org.getContact('s@example.com');
      expect(read.body.contact.suppressed).toEqual({ reason: 'bounced' });
      expect(await app.t.prisma.suppression.count({ where: { organizationId: c.org.id } })).toBe(1);
    });

    it('applies defaults on create (not over an explicit null) and a required default on update', async () => {
      const c = await Org.withList(app.t);
      await createCustomField(app.t.prisma, c.org.id, { key: 'plan', type: 'select', options: ['free', 'pro'], defaultValue: 'free' });
      await createCustomField(app.t.prisma, c.org.id, { key: 'newsletter', type: 'boolean', defaultValue: true });
      await c.org.postContact({ email: 'd@example.com', listIds: [c.list], fields: { newsletter: null } });
      expect((await c.org.getContact('d@example.com')).body.contact.fields).toEqual({ plan: 'free' });

      // A required field defined later: the next update fills it with its default.
      await createCustomField(app.t.prisma, c.org.id, { key: 'tier', type: 'text', required: true, defaultValue: 'basic' });
      const updated = await c.org.postContact({ email: 'd@example.com', listIds: [c.list], overwrite: true });
      expect(updated.body).toMatchObject({ status: 'updated', changedFields: ['tier'], addedListIds: [] });
      expect((await c.org.getContact('d@example.com')).body.contact.fields).toEqual({ plan: 'free', tier: 'basic' });
    });

    it('odd input is a per-contact failure, never a server error', async () => {
      const c = await Org.withList(app.t);
      const raw = (json: string) =>
        app.t.http().post('/api/v2/contacts').set('Authorization', `Bearer ${c.org.key}`).set('Content-Type', 'application/json').send(json);
      const nulInListId = await raw(`{"email":"o@example.com","listIds":["${c.list}","a\\u0000b"]}`);
      expect(nulInListId.body).toMatchObject({ code: 'INVALID_LIST', invalidListIds: ['a\u0000b'] });
      const loneSurrogate = await raw(`{"email":"o@example.com","listIds":["${c.list}"],"fields":{"firstName":"\\ud800"}}`);
      expect(loneSurrogate.body).toMatchObject({ code: 'FIELD_TYPE_MISMATCH' });
      const nulInField = await raw(`{"email":"o@example.com","listIds":["${c.list}"],"fields":{"city":"a\\u0000"}}`);
      expect(nulInField.body).toMatchObject({ code: 'FIELD_TYPE_MISMATCH' });
      const proto = await raw(`{"email":"o@example.com","listIds":["${c.list}"],"fields":{"__proto__":{"x":1},"constructor":"c"}}`);
      expect(proto.status).toBe(400);
      expect(proto.body).toMatchObject({ code: 'UNKNOWN_FIELD', message: expect.stringContaining('__proto__') });
      expect(proto.body.message).toContain('constructor');
      expect(await contactCount(app.t, c.org.id)).toBe(0);
    });

    it('refuses a body that is not one object, and a shape error, with the request-level body', async () => {
      const c = await Org.withList(app.t);
      for (const body of [[{ email: 'a@example.com', listIds: [c.list] }], 'x', 5]) {
        const res = await c.org.postRaw('/api/v2/contacts', JSON.stringify(body));
        expect([res.status, res.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
      }
      const nullBody = await app.t.http().post('/api/v2/contacts').set('Authorization', `Bearer ${c.org.key}`)
        .set('Content-Type', 'application/json').send('null');
      expect([nullBody.status, nullBody.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
      const shape = await c.org.postContact({ email: 'a@example.com', listIds: null });
      expect(shape.status).toBe(400);
      expect(shape.body).toEqual({
        request_id: shape.headers['x-request-id'],
        error: { code: 'INVALID_REQUEST', message: 'listIds must be an array of strings' },
      });
    });
  });

  describe('POST /api/v2/contacts/batch', () => {
    it('answers one result per row in order, with index, summary and DUPLICATE_IN_REQUEST', async () => {
      const c = await Org.withList(app.t);
      await c.org.postContact({ email: 'old@example.com', listIds: [c.list] });
      const res = await c.org.postBatch({
        contacts: [
          { email: 'new@example.com', listIds: [c.list] },
          { email: 'old@example.com', listIds: [c.list], overwrite: true, fields: { city: 'Y' } },
          { email: 'NEW@example.com', listIds: [c.list] },
          { email: null, listIds: [c.list] },
          { email: 'old@example.com', listIds: [c.list] },
          { email: 'x@example.com', listIds: ['missing'] },
        ],
      });
      expect(res.status).toBe(200);
      const old = await c.org.getContact('old@example.com');
      const created = await c.org.getContact('new@example.com');
      expect(res.body).toEqual({
        request_id: res.headers['x-request-id'],
        results: [
          { index: 0, id: created.body.contact.id, email: 'new@example.com', status: 'created' },
          { index: 1, id: old.body.contact.id, email: 'old@example.com', status: 'updated', changedFields: ['city'], addedListIds: [] },
          { index: 2, email: 'new@example.com', status: 'failed', code: 'DUPLICATE_IN_REQUEST', message: expect.any(String) },
          { index: 3, email: null, status: 'failed', code: 'INVALID_EMAIL', message: expect.any(String) },
          { index: 4, email: 'old@example.com', status: 'failed', code: 'DUPLICATE_IN_REQUEST', message: expect.any(String) },
          { index: 5, email: 'x@example.com', status: 'failed', code: 'INVALID_LIST', message: expect.any(String), invalidListIds: ['missing'] },
        ],
        summary: { created: 1, updated: 1, unchanged: 0, failed: 4 },
      });
    });

    it('writes nothing on a shape error in any row, and counts more than 50 before the entries', async () => {
      const c = await Org.withList(app.t);
      const shape = await c.org.postBatch({ contacts: [{ email: 'a@example.com', listIds: [c.list] }, { email: 'b@example.com', fields: [] }] });
      expect(shape.status).toBe(400);
      expect(shape.body.error).toEqual({ code: 'INVALID_REQUEST', message: 'contacts[1].fields must be an object' });
      expect(await contactCount(app.t, c.org.id)).toBe(0);

      const tooMany = await c.org.postBatch({ contacts: Array.from({ length: 51 }, () => ({ junk: true })) });
      expect([tooMany.status, tooMany.body.error.code]).toEqual([400, 'BATCH_LIMIT_EXCEEDED']);
      for (const body of [{}, { contacts: [] }, [{ email: 'a@example.com' }], { contacts: [], extra: 1 }]) {
        const res = await c.org.postBatch(body);
        expect([res.status, res.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
      }
    });
  });

  describe('dry run', () => {
    it('a bad dryRun is refused before the body’s shape, on both endpoints (decisions: ?dryRun)', async () => {
      const c = await Org.withList(app.t);
      const single = await c.org.postRaw('/api/v2/contacts?dryRun=yes', JSON.stringify({ email: 'a@example.com', listIds: null, extra: 1 }));
      const batch = await c.org.postRaw('/api/v2/contacts/batch?dryRun=1', JSON.stringify({ contacts: Array.from({ length: 60 }, () => 7) }));
      for (const res of [single, batch]) {
        expect([res.status, res.body.error]).toEqual([400, { code: 'INVALID_REQUEST', message: 'dryRun must be true or false' }]);
      }
    });

    it('answers what the real call would, with dryRun: true and no id on created, and writes nothing', async () => {
      const c = await Org.withList(app.t);
      await c.org.postContact({ email: 'have@example.com', listIds: [c.list] });
      const before = { contacts: await contactCount(app.t, c.org.id), memberships: await membershipCount(app.t, c.org.id) };

      const create = await c.org.postContact({ email: 'dry@example.com', listIds: [c.list] }, { dryRun: true });
      expect(create.status).toBe(201);
      expect(create.body).toEqual({ request_id: create.headers['x-request-id'], email: 'dry@example.com', status: 'created', dryRun: true });

      const dup = await c.org.postContact({ email: 'have@example.com', listIds: [c.list] }, { dryRun: true });
      expect([dup.status, dup.body.code, dup.body.dryRun]).toEqual([409, 'DUPLICATE_EMAIL', true]);

      const batch = await c.org.postBatch(
        { contacts: [{ email: 'have@example.com', listIds: [c.list], overwrite: true, fields: { city: 'Z' } }, { email: 'dry2@example.com', listIds: [c.list] }] },
        { dryRun: true },
      );
      expect(batch.body).toMatchObject({
        dryRun: true,
        results: [{ index: 0, status: 'updated', changedFields: ['city'], id: expect.any(String) }, { index: 1, status: 'created' }],
        summary: { created: 1, updated: 1, unchanged: 0, failed: 0 },
      });
      expect(batch.body.results[1]).not.toHaveProperty('id');

      expect({ contacts: await contactCount(app.t, c.org.id), memberships: await membershipCount(app.t, c.org.id) }).toEqual(before);
      expect((await c.org.getContact('have@example.com')).body.contact.fields).toEqual({});
    });

    it('accepts dryRun=false as a real call and refuses any other value', async () => {
      const c = await Org.withList(app.t);
      const real = await c.org.postRaw('/api/v2/contacts?dryRun=false', JSON.stringify({ email: 'f@example.com', listIds: [c.list] }));
      expect([real.status, real.body.dryRun]).toEqual([201, undefined]);
      expect(await contactCount(app.t, c.org.id)).toBe(1);
      for (const query of ['?dryRun=1', '?dryRun=yes', '?dryRun=', '?dryRun=true&dryRun=true']) {
        const res = await c.org.postRaw(`/api/v2/contacts/batch${query}`, JSON.stringify({ contacts: [{ email: 'g@example.com', listIds: [c.list] }] }));
        expect([query, res.status, res.body.error?.code]).toEqual([query, 400, 'INVALID_REQUEST']);
      }
      expect(await contactCount(app.t, c.org.id)).toBe(1);
    });
  });

  describe('GET /api/v2/contacts/:email', () => {
    it('shows stored values only: dates as strings, numbers as numbers, listIds, suppression, ISO times', async () => {
      const c = await Org.withList(app.t);
      await createCustomField(app.t.prisma, c.org.id, { key: 'born', type: 'date' });
      await createCustomField(app.t.prisma, c.org.id, { key: 'score', type: 'number' });
      await createCustomField(app.t.prisma, c.org.id, { key: 'vip', type: 'boolean' });
      const created = await c.org.postContact({
        email: 'r@example.com',
        listIds: [c.list],
        fields: { firstName: 'R', company: null, born: '2000-02-29', score: 1.5, vip: false },
      });
      const res = await c.org.getContact(' R@Example.com');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        request_id: res.headers['x-request-id'],
        contact: {
          id: created.body.id,
          email: 'r@example.com',
          listIds: [c.list],
          fields: { firstName: 'R', born: '2000-02-29', score: 1.5, vip: false },
          suppressed: null,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      });
    });

    it('404 CONTACT_NOT_FOUND for an unknown contact, another organization\'s contact and a non-email', async () => {
      const c = await Org.withList(app.t);
      const other = await Org.withList(app.t);
      await other.org.postContact({ email: 'theirs@example.com', listIds: [other.list] });
      for (const email of ['nobody@example.com', 'theirs@example.com', 'not-an-email']) {
        const res = await c.org.getContact(email);
        expect([email, res.status, res.body.error?.code]).toEqual([email, 404, 'CONTACT_NOT_FOUND']);
      }
    });

    it('400 INVALID_REQUEST for broken percent-encoding, in the contract\'s error body', async () => {
      const c = await Org.withList(app.t);
      const res = await c.org.get('/api/v2/contacts/%E0%A4%A');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ request_id: res.headers['x-request-id'], error: { code: 'INVALID_REQUEST', message: expect.any(String) } });
    });

    it('checks the path encoding after the API key and the organization limit (it counts and carries the headers)', async () => {
      const c = await Org.withList(app.t);
      for (const path of ['/api/v2/contacts/%ZZ', '/api/v2/requests/%E0%A4%A']) {
        const anonymous = await app.t.http().get(path);
        expect([anonymous.status, anonymous.body.error?.code, anonymous.headers['www-authenticate']]).toEqual([401, 'INVALID_API_KEY', 'Bearer']);
        const before = Number((await c.org.get('/api/v2/lists')).headers['x-ratelimit-remaining']);
        const res = await c.org.get(path);
        expect([res.status, res.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
        expect(Number(res.headers['x-ratelimit-remaining'])).toBe(before - 1);
      }
    });

    it('GET /contacts/batch is an unknown route (404 NOT_FOUND), with or without a key', async () => {
      const c = await Org.withList(app.t);
      for (const res of [await c.org.get('/api/v2/contacts/batch'), await app.t.http().get('/api/v2/contacts/batch')]) {
        expect([res.status, res.body.error?.code]).toEqual([404, 'NOT_FOUND']);
      }
    });
  });

  it('GET /api/v2/fields lists standard fields in order and the organization\'s custom fields', async () => {
    const c = await Org.withList(app.t);
    await createCustomField(app.t.prisma, c.org.id, { key: 'plan', type: 'select', required: true, options: ['a', 'b'], defaultValue: 'a' });
    await createCustomField(app.t.prisma, c.org.id, { key: 'age', type: 'number' });
    const other = await createOrganization(app.t.prisma);
    await createCustomField(app.t.prisma, other.id, { key: 'secret', type: 'text' });

    const res = await c.org.get('/api/v2/fields');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      request_id: res.headers['x-request-id'],
      standard: ['firstName', 'lastName', 'phone', 'company', 'jobTitle', 'city', 'country'].map((key) => ({ key, type: 'text', maxLength: 255 })),
      custom: [
        { key: 'plan', type: 'select', required: true, defaultValue: 'a', options: ['a', 'b'] },
        { key: 'age', type: 'number', required: false, defaultValue: null, options: null },
      ],
    });
  });

  it('counts contacts_processed_total per result of real runs, not of dry runs', async () => {
    const c = await Org.withList(app.t);
    const metrics = app.t.app.get(MetricsService);
    const value = async (labels: { outcome: string; code: string }) =>
      (await metrics.contactsProcessed.get()).values.find(
        (v) => v.labels.outcome === labels.outcome && v.labels.code === labels.code,
      )?.value ?? 0;
    const before = { created: await value({ outcome: 'created', code: '' }), invalid: await value({ outcome: 'failed', code: 'INVALID_EMAIL' }) };

    await c.org.postBatch({ contacts: [{ email: 'm1@example.com', listIds: [c.list] }, { email: 'bad', listIds: [c.list] }] });
    await c.org.postBatch({ contacts: [{ email: 'm2@example.com', listIds: [c.list] }, { email: 'bad', listIds: [c.list] }] }, { dryRun: true });

    expect(await value({ outcome: 'created', code: '' })).toBe(before.created + 1);
    expect(await value({ outcome: 'failed', code: 'INVALID_EMAIL' })).toBe(before.invalid + 1);
  });
});
