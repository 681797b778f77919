import type { Response } from 'supertest';
import { StoredResponsesSweeper } from '../../src/requests/stored-responses.sweeper';
import { contactCount } from '../contacts/contacts-helpers';
import { Org } from '../contract/helpers';
import { createList, suppress } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';
import { refuseInsertsWhere } from '../utils/refuse-inserts';

const HOUR = 60 * 60 * 1000;

describe('GET /api/v2/requests/{request_id} (lost responses)', () => {
  const app = useTestApp();

  type Caller = Awaited<ReturnType<typeof Org.withList>>;
  const lookUp = (c: Caller, requestId: string) => c.org.get(`/api/v2/requests/${requestId}`);
  const storedCount = (organizationId: string) => app.t.prisma.storedResponse.count({ where: { organizationId } });

  /** The POST's answer, read back: same HTTP status, same body, under the POST's id; the GET has its own id. */
  async function expectStored(c: Caller, post: Response) {
    const postId = post.headers['x-request-id'];
    const read = await lookUp(c, postId);
    expect(read.status).toBe(200);
    expect(read.body).toStrictEqual({
      request_id: read.headers['x-request-id'],
      original: { request_id: postId, status: post.status, body: post.body },
    });
    expect(read.body.request_id).not.toBe(postId);
    // Byte for byte as answered, key order included.
    expect(JSON.stringify(read.body.original.body)).toBe(post.text);
  }

  async function expectNotFound(c: Caller, requestId: string) {
    const read = await lookUp(c, requestId);
    expect(read.status).toBe(404);
    expect(read.body).toStrictEqual({
      request_id: read.headers['x-request-id'],
      error: { code: 'REQUEST_NOT_FOUND', message: expect.any(String) },
    });
  }

  describe('single endpoint: every answer from the pipeline is stored', () => {
    it('created (201), updated (200, changedFields), unchanged (200)', async () => {
      const c = await Org.withList(app.t);
      const second = await createList(app.t.prisma, c.org.id, 'Second');
      const created = await c.org.postContact({ email: 'ada@example.com', listIds: [c.list] }).expect(201);
      await expectStored(c, created);

      const change = { email: 'ada@example.com', listIds: [second.id], overwrite: true, fields: { city: 'Paris' } };
      const updated = await c.org.postContact(change).expect(200);
      expect(updated.body).toMatchObject({ status: 'updated', changedFields: ['city'], addedListIds: [second.id] });
      await expectStored(c, updated);

      const unchanged = await c.org.postContact(change).expect(200);
      expect(unchanged.body.status).toBe('unchanged');
      await expectStored(c, unchanged);
      expect(await storedCount(c.org.id)).toBe(3);
    });

    it('per-contact failures: 400 (rules 1–3 and later rules) and 409 with their extra fields', async () => {
      const c = await Org.withList(app.t);
      await suppress(app.t.prisma, c.org.id, 'gone@example.com', 'bounced');
      await c.org.postContact({ email: 'taken@example.com', listIds: [c.list] }).expect(201);

      const answers = [
        await c.org.postContact({ email: 'not-an-email', listIds: [c.list] }).expect(400), // fails before any read
        await c.org.postContact({ email: 'x@example.com', listIds: ['nope', 'nope'] }).expect(400), // INVALID_LIST
        await c.org.postContact({ email: 'taken@example.com', listIds: [c.list] }).expect(409), // DUPLICATE_EMAIL
        await c.org.postContact({ email: 'gone@example.com', listIds: [c.list] }).expect(409), // SUPPRESSED_EMAIL
      ];
      expect(answers.map((a) => a.body.code)).toEqual(['INVALID_EMAIL', 'INVALID_LIST', 'DUPLICATE_EMAIL', 'SUPPRESSED_EMAIL']);
      expect(answers[1].body.invalidListIds).toEqual(['nope']);
      expect(answers[3].body.suppressionReason).toBe('bounced');
      for (const answer of answers) await expectStored(c, answer);
    });
  });

  it('stores answers that echo U+0000 and lone surrogates from the input (which jsonb would refuse)', async () => {
    const c = await Org.withList(app.t);
    const raw = (path: string, json: string) =>
      app.t.http().post(path).set('Authorization', `Bearer ${c.org.key}`).set('Content-Type', 'application/json').send(json);
    const nulListId = await raw('/api/v2/contacts', `{"email":"o@example.com","listIds":["${c.list}","a\\u0000b"]}`).expect(400);
    expect(nulListId.body).toMatchObject({ code: 'INVALID_LIST', invalidListIds: ['a\u0000b'] });
    const surrogate = await raw('/api/v2/contacts', '{"email":"\\udc00@example.com"}').expect(400);
    expect(surrogate.body).toMatchObject({ email: '\udc00@example.com', code: 'INVALID_EMAIL' });
    const batch = await raw('/api/v2/contacts/batch', '{"contacts":[{"email":"x\\u0000@example.com"},{"email":"\\ud800@example.com"}]}').expect(200);
    expect(batch.body.results.map((r: { email: string }) => r.email)).toEqual(['x\u0000@example.com', '\ud800@example.com']);
    for (const answer of [nulListId, surrogate, batch]) await expectStored(c, answer);
  });

  describe('batch endpoint', () => {
    it('stores a mixed batch (created, updated, unchanged, failed) exactly as answered', async () => {
      const c = await Org.withList(app.t);
      await c.org.postContact({ email: 'old@example.com', listIds: [c.list] }).expect(201);
      await c.org.postContact({ email: 'same@example.com', listIds: [c.list] }).expect(201);
      const batch = await c.org
        .postBatch({
          contacts: [
            { email: 'new@example.com', listIds: [c.list] },
            { email: 'old@example.com', listIds: [c.list], overwrite: true, fields: { firstName: 'Ada' } },
            { email: 'same@example.com', listIds: [c.list], overwrite: true },
            { email: 'bad', listIds: [c.list] },
            { email: 'new@example.com', listIds: [c.list] },
          ],
        })
        .expect(200);
      expect(batch.body.summary).toEqual({ created: 1, updated: 1, unchanged: 1, failed: 2 });
      await expectStored(c, batch);
    });

    it('stores a batch whose every row failed the request-only rules (nothing else written)', async () => {
      const c = await Org.withList(app.t);
      const batch = await c.org.postBatch({ contacts: [{ email: 'bad' }, { email: 'ok@example.com' }] }).expect(200);
      expect(batch.body.summary).toEqual({ created: 0, updated: 0, unchanged: 0, failed: 2 });
      await expectStored(c, batch);
      expect(await contactCount(app.t, c.org.id)).toBe(0);
    });
  });

  describe('not stored', () => {
    it('dry runs, single and batch', async () => {
      const c = await Org.withList(app.t);
      const single = await c.org.postContact({ email: 'dry@example.com', listIds: [c.list] }, { dryRun: true }).expect(201);
      const batch = await c.org.postBatch({ contacts: [{ email: 'dry@example.com', listIds: [c.list] }] }, { dryRun: true }).expect(200);
      expect([single.body.dryRun, batch.body.dryRun]).toEqual([true, true]);
      await expectNotFound(c, single.headers['x-request-id']);
      await expectNotFound(c, batch.headers['x-request-id']);
      expect(await storedCount(c.org.id)).toBe(0);
    });

    it('request-level errors: shape, malformed JSON, batch limit, payload too large', async () => {
      const c = await Org.withList(app.t);
      const auth = { Authorization: `Bearer ${c.org.key}` };
      const tooMany = { contacts: Array.from({ length: 51 }, (_, i) => ({ email: `b${i}@example.com`, listIds: [c.list] })) };
      const answers = [
        await c.org.postContact({ email: 'a@example.com', listIds: [c.list], extra: 1 }).expect(400),
        await c.org.postBatch({ contacts: [{ email: 'a@example.com', listIds: 'x' }] }).expect(400),
        await app.t.http().post('/api/v2/contacts').set(auth).set('Content-Type', 'application/json').send('{"email":').expect(400),
        await c.org.postBatch(tooMany).expect(400),
        await app.t
          .http()
          .post('/api/v2/contacts/batch')
          .set(auth)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ contacts: [{ email: 'a@example.com', fields: { city: 'x'.repeat(1_100_000) } }] }))
          .expect(413),
      ];
      expect(answers.map((a) => a.body.error.code)).toEqual([
        'INVALID_REQUEST',
        'INVALID_REQUEST',
        'INVALID_REQUEST',
        'BATCH_LIMIT_EXCEEDED',
        'PAYLOAD_TOO_LARGE',
      ]);
      for (const answer of answers) await expectNotFound(c, answer.headers['x-request-id']);
      expect(await storedCount(c.org.id)).toBe(0);
    });
  });

  describe('lookup', () => {
    it("another organization's id is 404 REQUEST_NOT_FOUND; the owner still reads it", async () => {
      const owner = await Org.withList(app.t);
      const other = await Org.withList(app.t);
      const post = await owner.org.postContact({ email: 'mine@example.com', listIds: [owner.list] }).expect(201);
      await expectNotFound(other, post.headers['x-request-id']);
      await expectStored(owner, post);
    });

    it('unknown and malformed ids are 404 REQUEST_NOT_FOUND; an upper-case id names the same request', async () => {
      const c = await Org.withList(app.t);
      await expectNotFound(c, '00000000-0000-4000-8000-000000000000');
      await expectNotFound(c, 'not-a-request-id');
      await expectNotFound(c, 'x'.repeat(300));
      const post = await c.org.postContact({ email: 'case@example.com', listIds: [c.list] }).expect(201);
      const read = await lookUp(c, (post.headers['x-request-id']).toUpperCase()).expect(200);
      expect(read.body.original.request_id).toBe(post.headers['x-request-id']);
    });

    it('needs the API key (401) and counts toward the organization limit', async () => {
      const c = await Org.withList(app.t);
      const post = await c.org.postContact({ email: 'k@example.com', listIds: [c.list] }).expect(201);
      const path = `/api/v2/requests/${post.headers['x-request-id']}`;
      const anonymous = await app.t.http().get(path).expect(401);
      expect(anonymous.body.error.code).toBe('INVALID_API_KEY');

      const first = await c.org.get(path).expect(200);
      const second = await c.org.get(path).expect(200);
      const remaining = (res: Response) => Number(res.headers['x-ratelimit-remaining']);
      expect(remaining(first)).toBe(Number(post.headers['x-ratelimit-remaining']) - 1);
      expect(remaining(second)).toBe(remaining(first) - 1);
    });
  });

  describe('expiry after 24 hours', () => {
    const backdate = (requestId: string, ageMs: number) =>
      app.t.prisma.storedResponse.update({ where: { requestId }, data: { createdAt: new Date(Date.now() - ageMs) } });

    it('an answer older than 24 hours is never served, and the sweep deletes only expired rows', async () => {
      const c = await Org.withList(app.t);
      const old = await c.org.postContact({ email: 'old@example.com', listIds: [c.list] }).expect(201);
      const recent = await c.org.postContact({ email: 'recent@example.com', listIds: [c.list] }).expect(201);
      const oldId = old.headers['x-request-id'];
      await backdate(oldId, 24 * HOUR + 1000);
      await backdate(recent.headers['x-request-id'], 23 * HOUR);

      // Not yet swept, still not served.
      expect(await app.t.prisma.storedResponse.count({ where: { requestId: oldId } })).toBe(1);
      await expectNotFound(c, oldId);
      await expectStored(c, recent);

      await app.t.app.get(StoredResponsesSweeper).sweep();
      expect(await app.t.prisma.storedResponse.findMany({ where: { organizationId: c.org.id }, select: { requestId: true } })).toEqual([
        { requestId: recent.headers['x-request-id'] },
      ]);
    });
  });

  describe('same transaction as the contacts', () => {
    beforeAll(async () => {
      // Real failures raised by PostgreSQL inside the transaction.
      await refuseInsertsWhere(app.t.prisma, 'refuse_poison_contact_rs', 'contacts', "NEW.email LIKE 'poison%'");
      await refuseInsertsWhere(app.t.prisma, 'refuse_stored_response', 'stored_responses', "NEW.body::text LIKE '%unstorable%'");
    });

    it('a batch whose contact write fails answers 500 and stores nothing', async () => {
      const c = await Org.withList(app.t);
      const res = await c.org.postBatch({
        contacts: [
          { email: 'fresh@example.com', listIds: [c.list] },
          { email: 'poison@example.com', listIds: [c.list] },
        ],
      });
      expect([res.status, res.body.error?.code]).toEqual([500, 'INTERNAL_ERROR']);
      await expectNotFound(c, res.headers['x-request-id']);
      expect(await storedCount(c.org.id)).toBe(0);
      expect(await contactCount(app.t, c.org.id)).toBe(0);
    });

    it('when storing the answer fails, the contacts are not written either (500)', async () => {
      const c = await Org.withList(app.t);
      const res = await c.org.postBatch({
        contacts: [
          { email: 'fresh@example.com', listIds: [c.list] },
          { email: 'unstorable@example.com', listIds: [c.list] },
        ],
      });
      expect([res.status, res.body.error?.code]).toEqual([500, 'INTERNAL_ERROR']);
      expect(await contactCount(app.t, c.org.id)).toBe(0);
      expect(await storedCount(c.org.id)).toBe(0);
    });
  });
});
