import { MetricsService } from '../../src/metrics/metrics.service';
import { createCustomField, createList, createOrganization, suppress } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';
import { contactCount, membershipCount, setUpCaller } from './contacts-helpers';

describe('contacts API', () => {
  const app = useTestApp();

  describe('POST /api/v2/contacts', () => {
    it('creates (201), then refuses a second create (409 DUPLICATE_EMAIL) without changing anything', async () => {
      const c = await setUpCaller(app.t);
      const created = await c.postContact({ email: ' Ada@Example.COM ', listIds: [c.list.id], fields: { firstName: 'Ada' } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        request_id: created.headers['x-request-id'],
        id: expect.any(String),
        email: 'ada@example.com',
        status: 'created',
      });

      const again = await c.postContact({ email: 'ada@example.com', listIds: [c.list.id], fields: { firstName: 'Other' } });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        request_id: again.headers['x-request-id'],
        email: 'ada@example.com',
        status: 'failed',
        code: 'DUPLICATE_EMAIL',
        message: expect.any(String),
      });
      const read = await c.getContact('ada@example.com');
      expect(read.body.contact.fields).toEqual({ firstName: 'Ada' });
      expect(await contactCount(app.t, c.org.id)).toBe(1);
    });

    it('updates with overwrite (200, changedFields sorted, addedListIds), and a retry is unchanged', async () => {
      const c = await setUpCaller(app.t);
      const second = await createList(app.t.prisma, c.org.id, 'Second');
      await createCustomField(app.t.prisma, c.org.id, { key: 'score', type: 'number' });
      const created = await c.postContact({ email: 'u@example.com', listIds: [c.list.id], fields: { firstName: 'A', city: 'X' } });

      const update = { email: 'U@example.com', listIds: [second.id, c.list.id], overwrite: true, fields: { score: 7, firstName: 'B', city: 'X' } };
      const updated = await c.postContact(update);
      expect(updated.status).toBe(200);
      expect(updated.body).toEqual({
        request_id: updated.headers['x-request-id'],
        id: created.body.id,
        email: 'u@example.com',
        status: 'updated',
        changedFields: ['firstName', 'score'],
        addedListIds: [second.id],
      });

      const retried = await c.postContact(update);
      expect(retried.status).toBe(200);
      expect(retried.body).toEqual({ request_id: retried.headers['x-request-id'], id: created.body.id, email: 'u@example.com', status: 'unchanged' });

      const read = await c.getContact('u@example.com');
      expect(read.body.contact.fields).toEqual({ firstName: 'B', city: 'X', score: 7 });
      expect([...read.body.contact.listIds].sort()).toEqual([c.list.id, second.id].sort());
    });

    it('merges fields: null clears, keys not given keep their value; null on an empty field is unchanged', async () => {
      const c = await setUpCaller(app.t);
      await c.postContact({ email: 'm@example.com', listIds: [c.list.id], fields: { firstName: 'A', lastName: 'B' } });
      const cleared = await c.postContact({ email: 'm@example.com', listIds: [c.list.id], overwrite: true, fields: { lastName: null } });
      expect(cleared.body).toMatchObject({ status: 'updated', changedFields: ['lastName'], addedListIds: [] });
      const noop = await c.postContact({ email: 'm@example.com', listIds: [c.list.id], overwrite: true, fields: { phone: null } });
      expect(noop.body.status).toBe('unchanged');
      expect((await c.getContact('m@example.com')).body.contact.fields).toEqual({ firstName: 'A' });
    });

    it('per-contact failures: 400 with the normalized email, or null when email was not a string', async () => {
      const c = await setUpCaller(app.t);
      const notString = await c.postContact({ email: 42, listIds: [c.list.id] });
      expect(notString.status).toBe(400);
      expect(notString.body).toMatchObject({ email: null, status: 'failed', code: 'INVALID_EMAIL' });
      const missing = await c.postContact({ listIds: [c.list.id] });
      expect(missing.body).toMatchObject({ email: null, code: 'INVALID_EMAIL' });
      const invalid = await c.postContact({ email: ' NOPE ', listIds: [c.list.id] });
      expect(invalid.body).toMatchObject({ email: 'nope', code: 'INVALID_EMAIL' });
      const empty = await c.postContact({ email: 'e@example.com', listIds: [] });
      expect([empty.status, empty.body.code]).toEqual([400, 'EMPTY_LIST_IDS']);
    });

    it('INVALID_LIST for unknown, archived and foreign lists alike, each id once in order of first appearance', async () => {
      const c = await setUpCaller(app.t);
      const archived = await createList(app.t.prisma, c.org.id, 'Old', true);
      const other = await createOrganization(app.t.prisma);
      const foreign = await createList(app.t.prisma, other.id, 'Theirs');
      const res = await c.postContact({
        email: 'l@example.com',
        listIds: [foreign.id, c.list.id, 'not-a-uuid', archived.id, foreign.id],
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_LIST', invalidListIds: [foreign.id, 'not-a-uuid', archived.id] });
      expect(await contactCount(app.t, c.org.id)).toBe(0);
    });

    it('SUPPRESSED_EMAIL (409, with reason); overwrite creates or updates but never lifts the suppression', async () => {
      const c = await setUpCaller(app.t);
      await suppress(app.t.prisma, c.org.id, 's@example.com', 'bounced');
      const refused = await c.postContact({ email: 'S@example.com', listIds: [c.list.id] });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'SUPPRESSED_EMAIL', suppressionReason: 'bounced', email: 's@example.com' });

      const created = await c.postContact({ email: 's@example.com', listIds: [c.list.id], overwrite: true, fields: { city: 'A' } });
      expect([created.status, created.body.status]).toEqual([201, 'created']);
      const updated = await c.postContact({ email: 's@example.com', listIds: [c.list.id], overwrite: true, fields: { city: 'B' } });
      expect(updated.body).toMatchObject({ status: 'updated', changedFields: ['city'] });

      const read = await c.getContact('s@example.com');
      expect(read.body.contact.suppressed).toEqual({ reason: 'bounced' });
      expect(await app.t.prisma.suppression.count({ where: { organizationId: c.org.id } })).toBe(1);
    });

    it('applies defaults on create (not over an explicit null) and a required default on update', async () => {
      const c = await setUpCaller(app.t);
      await createCustomField(app.t.prisma, c.org.id, { key: 'plan', type: 'select', options: ['free', 'pro'], defaultValue: 'free' });
      await createCustomField(app.t.prisma, c.org.id, { key: 'newsletter', type: 'boolean', defaultValue: true });
      await c.postContact({ email: 'd@example.com', listIds: [c.list.id], fields: { newsletter: null } });
      expect((await c.getContact('d@example.com')).body.contact.fields).toEqual({ plan: 'free' });

      // A required field defined later: the next update fills it with its default.
      await createCustomField(app.t.prisma, c.org.id, { key: 'tier', type: 'text', required: true, defaultValue: 'basic' });
      const updated = await c.postContact({ email: 'd@example.com', listIds: [c.list.id], overwrite: true });
      expect(updated.body).toMatchObject({ status: 'updated', changedFields: ['tier'], addedListIds: [] });
      expect((await c.getContact('d@example.com')).body.contact.fields).toEqual({ plan: 'free', tier: 'basic' });
    });

    it('odd input is a per-contact failure, never a server error', async () => {
      const c = await setUpCaller(app.t);
      const raw = (json: string) =>
        app.t.http().post('/api/v2/contacts').set('Authorization', `Bearer ${c.org.apiKey}`).set('Content-Type', 'application/json').send(json);
      const nulInListId = await raw(`{"email":"o@example.com","listIds":["${c.list.id}","a\\u0000b"]}`);
      expect(nulInListId.body).toMatchObject({ code: 'INVALID_LIST', invalidListIds: ['a\u0000b'] });
      const loneSurrogate = await raw(`{"email":"o@example.com","listIds":["${c.list.id}"],"fields":{"firstName":"\\ud800"}}`);
      expect(loneSurrogate.body).toMatchObject({ code: 'FIELD_TYPE_MISMATCH' });
      const nulInField = await raw(`{"email":"o@example.com","listIds":["${c.list.id}"],"fields":{"city":"a\\u0000"}}`);
      expect(nulInField.body).toMatchObject({ code: 'FIELD_TYPE_MISMATCH' });
      const proto = await raw(`{"email":"o@example.com","listIds":["${c.list.id}"],"fields":{"__proto__":{"x":1},"constructor":"c"}}`);
      expect(proto.status).toBe(400);
      expect(proto.body).toMatchObject({ code: 'UNKNOWN_FIELD', message: expect.stringContaining('__proto__') });
      expect(proto.body.message).toContain('constructor');
      expect(await contactCount(app.t, c.org.id)).toBe(0);
    });

    it('refuses a body that is not one object, and a shape error, with the request-level body', async () => {
      const c = await setUpCaller(app.t);
      for (const body of [[{ email: 'a@example.com', listIds: [c.list.id] }], 'x', 5]) {
        const res = await c.postContact(JSON.stringify(body)).set('Content-Type', 'application/json');
        expect([res.status, res.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
      }
      const nullBody = await app.t.http().post('/api/v2/contacts').set('Authorization', `Bearer ${c.org.apiKey}`)
        .set('Content-Type', 'application/json').send('null');
      expect([nullBody.status, nullBody.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
      const shape = await c.postContact({ email: 'a@example.com', listIds: null });
      expect(shape.status).toBe(400);
      expect(shape.body).toEqual({
        request_id: shape.headers['x-request-id'],
        error: { code: 'INVALID_REQUEST', message: 'listIds must be an array of strings' },
      });
    });
  });

  describe('POST /api/v2/contacts/batch', () => {
    it('answers one result per row in order, with index, summary and DUPLICATE_IN_REQUEST', async () => {
      const c = await setUpCaller(app.t);
      await c.postContact({ email: 'old@example.com', listIds: [c.list.id] });
      const res = await c.postBatch({
        contacts: [
          { email: 'new@example.com', listIds: [c.list.id] },
          { email: 'old@example.com', listIds: [c.list.id], overwrite: true, fields: { city: 'Y' } },
          { email: 'NEW@example.com', listIds: [c.list.id] },
          { email: null, listIds: [c.list.id] },
          { email: 'old@example.com', listIds: [c.list.id] },
          { email: 'x@example.com', listIds: ['missing'] },
        ],
      });
      expect(res.status).toBe(200);
      const old = await c.getContact('old@example.com');
      const created = await c.getContact('new@example.com');
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
      const c = await setUpCaller(app.t);
      const shape = await c.postBatch({ contacts: [{ email: 'a@example.com', listIds: [c.list.id] }, { email: 'b@example.com', fields: [] }] });
      expect(shape.status).toBe(400);
      expect(shape.body.error).toEqual({ code: 'INVALID_REQUEST', message: 'contacts[1].fields must be an object' });
      expect(await contactCount(app.t, c.org.id)).toBe(0);

      const tooMany = await c.postBatch({ contacts: Array.from({ length: 51 }, () => ({ junk: true })) });
      expect([tooMany.status, tooMany.body.error.code]).toEqual([400, 'BATCH_LIMIT_EXCEEDED']);
      for (const body of [{}, { contacts: [] }, [{ email: 'a@example.com' }], { contacts: [], extra: 1 }]) {
        const res = await c.postBatch(body);
        expect([res.status, res.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
      }
    });
  });

  describe('dry run', () => {
    it('a bad dryRun is refused before the body’s shape, on both endpoints (decisions: ?dryRun)', async () => {
      const c = await setUpCaller(app.t);
      const single = await c.postContact({ email: 'a@example.com', listIds: null, extra: 1 }, '?dryRun=yes');
      const batch = await c.postBatch({ contacts: Array.from({ length: 60 }, () => 7) }, '?dryRun=1');
      for (const res of [single, batch]) {
        expect([res.status, res.body.error]).toEqual([400, { code: 'INVALID_REQUEST', message: 'dryRun must be true or false' }]);
      }
    });

    it('answers what the real call would, with dryRun: true and no id on created, and writes nothing', async () => {
      const c = await setUpCaller(app.t);
      await c.postContact({ email: 'have@example.com', listIds: [c.list.id] });
      const before = { contacts: await contactCount(app.t, c.org.id), memberships: await membershipCount(app.t, c.org.id) };

      const create = await c.postContact({ email: 'dry@example.com', listIds: [c.list.id] }, '?dryRun=true');
      expect(create.status).toBe(201);
      expect(create.body).toEqual({ request_id: create.headers['x-request-id'], email: 'dry@example.com', status: 'created', dryRun: true });

      const dup = await c.postContact({ email: 'have@example.com', listIds: [c.list.id] }, '?dryRun=true');
      expect([dup.status, dup.body.code, dup.body.dryRun]).toEqual([409, 'DUPLICATE_EMAIL', true]);

      const batch = await c.postBatch(
        { contacts: [{ email: 'have@example.com', listIds: [c.list.id], overwrite: true, fields: { city: 'Z' } }, { email: 'dry2@example.com', listIds: [c.list.id] }] },
        '?dryRun=true',
      );
      expect(batch.body).toMatchObject({
        dryRun: true,
        results: [{ index: 0, status: 'updated', changedFields: ['city'], id: expect.any(String) }, { index: 1, status: 'created' }],
        summary: { created: 1, updated: 1, unchanged: 0, failed: 0 },
      });
      expect(batch.body.results[1]).not.toHaveProperty('id');

      expect({ contacts: await contactCount(app.t, c.org.id), memberships: await membershipCount(app.t, c.org.id) }).toEqual(before);
      expect((await c.getContact('have@example.com')).body.contact.fields).toEqual({});
    });

    it('accepts dryRun=false as a real call and refuses any other value', async () => {
      const c = await setUpCaller(app.t);
      const real = await c.postContact({ email: 'f@example.com', listIds: [c.list.id] }, '?dryRun=false');
      expect([real.status, real.body.dryRun]).toEqual([201, undefined]);
      expect(await contactCount(app.t, c.org.id)).toBe(1);
      for (const query of ['?dryRun=1', '?dryRun=yes', '?dryRun=', '?dryRun=true&dryRun=true']) {
        const res = await c.postBatch({ contacts: [{ email: 'g@example.com', listIds: [c.list.id] }] }, query);
        expect([query, res.status, res.body.error?.code]).toEqual([query, 400, 'INVALID_REQUEST']);
      }
      expect(await contactCount(app.t, c.org.id)).toBe(1);
    });
  });

  describe('GET /api/v2/contacts/:email', () => {
    it('shows stored values only: dates as strings, numbers as numbers, listIds, suppression, ISO times', async () => {
      const c = await setUpCaller(app.t);
      await createCustomField(app.t.prisma, c.org.id, { key: 'born', type: 'date' });
      await createCustomField(app.t.prisma, c.org.id, { key: 'score', type: 'number' });
      await createCustomField(app.t.prisma, c.org.id, { key: 'vip', type: 'boolean' });
      const created = await c.postContact({
        email: 'r@example.com',
        listIds: [c.list.id],
        fields: { firstName: 'R', company: null, born: '2000-02-29', score: 1.5, vip: false },
      });
      const res = await c.getContact(' R@Example.com');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        request_id: res.headers['x-request-id'],
        contact: {
          id: created.body.id,
          email: 'r@example.com',
          listIds: [c.list.id],
          fields: { firstName: 'R', born: '2000-02-29', score: 1.5, vip: false },
          suppressed: null,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      });
    });

    it('404 CONTACT_NOT_FOUND for an unknown contact, another organization\'s contact and a non-email', async () => {
      const c = await setUpCaller(app.t);
      const other = await setUpCaller(app.t);
      await other.postContact({ email: 'theirs@example.com', listIds: [other.list.id] });
      for (const email of ['nobody@example.com', 'theirs@example.com', 'not-an-email']) {
        const res = await c.getContact(email);
        expect([email, res.status, res.body.error?.code]).toEqual([email, 404, 'CONTACT_NOT_FOUND']);
      }
    });

    it('400 INVALID_REQUEST for broken percent-encoding, in the contract\'s error body', async () => {
      const c = await setUpCaller(app.t);
      const res = await c.getPath('/api/v2/contacts/%E0%A4%A');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ request_id: res.headers['x-request-id'], error: { code: 'INVALID_REQUEST', message: expect.any(String) } });
    });

    it('checks the path encoding after the API key and the organization limit (it counts and carries the headers)', async () => {
      const c = await setUpCaller(app.t);
      for (const path of ['/api/v2/contacts/%ZZ', '/api/v2/requests/%E0%A4%A']) {
        const anonymous = await app.t.http().get(path);
        expect([anonymous.status, anonymous.body.error?.code, anonymous.headers['www-authenticate']]).toEqual([401, 'INVALID_API_KEY', 'Bearer']);
        const before = Number((await c.getPath('/api/v2/lists')).headers['x-ratelimit-remaining']);
        const res = await c.getPath(path);
        expect([res.status, res.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
        expect(Number(res.headers['x-ratelimit-remaining'])).toBe(before - 1);
      }
    });

    it('GET /contacts/batch is an unknown route (404 NOT_FOUND), with or without a key', async () => {
      const c = await setUpCaller(app.t);
      for (const res of [await c.getPath('/api/v2/contacts/batch'), await app.t.http().get('/api/v2/contacts/batch')]) {
        expect([res.status, res.body.error?.code]).toEqual([404, 'NOT_FOUND']);
      }
    });
  });

  it('GET /api/v2/fields lists standard fields in order and the organization\'s custom fields', async () => {
    const c = await setUpCaller(app.t);
    await createCustomField(app.t.prisma, c.org.id, { key: 'plan', type: 'select', required: true, options: ['a', 'b'], defaultValue: 'a' });
    await createCustomField(app.t.prisma, c.org.id, { key: 'age', type: 'number' });
    const other = await createOrganization(app.t.prisma);
    await createCustomField(app.t.prisma, other.id, { key: 'secret', type: 'text' });

    const res = await c.getPath('/api/v2/fields');
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
    const c = await setUpCaller(app.t);
    const metrics = app.t.app.get(MetricsService);
    const value = async (labels: { outcome: string; code: string }) =>
      (await metrics.contactsProcessed.get()).values.find(
        (v) => v.labels.outcome === labels.outcome && v.labels.code === labels.code,
      )?.value ?? 0;
    const before = { created: await value({ outcome: 'created', code: '' }), invalid: await value({ outcome: 'failed', code: 'INVALID_EMAIL' }) };

    await c.postBatch({ contacts: [{ email: 'm1@example.com', listIds: [c.list.id] }, { email: 'bad', listIds: [c.list.id] }] });
    await c.postBatch({ contacts: [{ email: 'm2@example.com', listIds: [c.list.id] }, { email: 'bad', listIds: [c.list.id] }] }, '?dryRun=true');

    expect(await value({ outcome: 'created', code: '' })).toBe(before.created + 1);
    expect(await value({ outcome: 'failed', code: 'INVALID_EMAIL' })).toBe(before.invalid + 1);
  });
});
