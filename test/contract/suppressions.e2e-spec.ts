import { bootApp, expectFailure, expectRequestError, expectSuccess, Org, uniqueEmail } from './helpers';
import { erase, listSuppressions, suppressMany, unsuppress } from './lifecycle-helpers';

/** docs/api.md, "Suppressions": black-box, HTTP only (fixtures aside). */
describe('suppressions over the API', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeEach(async () => ({ org, list } = await Org.withList(app.t)));

  describe('POST /api/v2/suppressions', () => {
    it('suppresses per row, keeps an existing reason, and reports INVALID_EMAIL and DUPLICATE_IN_REQUEST', async () => {
      const [a, b, c] = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')];
      await org.suppress(c, 'complained');
      const res = await suppressMany(org, [
        { email: ` ${a.toUpperCase()} `, reason: 'bounced' },
        { email: 'nope', reason: 'bounced' },
        { email: a, reason: 'unsubscribed' },
        { email: c, reason: 'bounced' },
        { reason: 'bounced' },
        { email: b, reason: 'unsubscribed' },
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        request_id: res.headers['x-request-id'],
        results: [
          { index: 0, email: a, status: 'suppressed', reason: 'bounced' },
          { index: 1, email: 'nope', status: 'failed', code: 'INVALID_EMAIL', message: expect.any(String) },
          { index: 2, email: a, status: 'failed', code: 'DUPLICATE_IN_REQUEST', message: expect.any(String) },
          { index: 3, email: c, status: 'unchanged', reason: 'complained' },
          { index: 4, email: null, status: 'failed', code: 'INVALID_EMAIL', message: expect.any(String) },
          { index: 5, email: b, status: 'suppressed', reason: 'unsubscribed' },
        ],
      });
      expectFailure(await org.postContact({ email: a, listIds: [list] }), 'SUPPRESSED_EMAIL', a, { suppressionReason: 'bounced' });
      const again = await suppressMany(org, [{ email: a, reason: 'complained' }]);
      expect(again.body.results).toEqual([{ index: 0, email: a, status: 'unchanged', reason: 'bounced' }]);
    });

    it('suppresses an existing contact: GET shows it', async () => {
      const email = uniqueEmail('contact');
      expectSuccess(await org.postContact({ email, listIds: [list] }), 'created', email);
      await suppressMany(org, [{ email, reason: 'complained' }]);
      expect((await org.read(email))?.suppressed).toEqual({ reason: 'complained' });
    });

    it.each([
      ['an unknown reason', { suppressions: [{ email: 'x@example.com', reason: 'spam' }] }],
      ['a missing reason', { suppressions: [{ email: 'x@example.com' }] }],
      ['an empty array', { suppressions: [] }],
      ['no suppressions key', {}],
      ['not an array', { suppressions: 'x@example.com' }],
      ['an entry that is not an object', { suppressions: ['x@example.com'] }],
      ['an unknown key in an entry', { suppressions: [{ email: 'x@example.com', reason: 'bounced', note: 1 }] }],
      ['an unknown top-level key', { suppressions: [{ email: 'x@example.com', reason: 'bounced' }], extra: true }],
      ['an array body', [{ email: 'x@example.com', reason: 'bounced' }]],
    ])('%s is 400 INVALID_REQUEST and writes nothing', async (_name, body) => {
      const valid = uniqueEmail('valid');
      const rows = (body as { suppressions?: unknown }).suppressions;
      // A valid row beside the bad one: the whole request is refused, the valid row included.
      const withValid = Array.isArray(rows) && rows.length > 0
        ? { ...body, suppressions: [{ email: valid, reason: 'bounced' }, ...(body as { suppressions: unknown[] }).suppressions] }
        : body;
      expectRequestError(await org.postRaw('/api/v2/suppressions', JSON.stringify(withValid)), 400, 'INVALID_REQUEST');
      expect((await listSuppressions(org)).body.suppressions).toEqual([]);
    });

    it('more than 50 entries is 400 BATCH_LIMIT_EXCEEDED', async () => {
      const rows = Array.from({ length: 51 }, (_, i) => ({ email: `u${i}@example.com`, reason: 'bounced' }));
      expectRequestError(await suppressMany(org, rows), 400, 'BATCH_LIMIT_EXCEEDED');
      const fifty = await suppressMany(org, rows.slice(0, 50));
      expect(fifty.body.results.every((r: { status: string }) => r.status === 'suppressed')).toBe(true);
    });
  });

  describe('GET /api/v2/suppressions', () => {
    it('pages by email in byte order with a cursor bound to the filter', async () => {
      const emails = ['b@example.com', 'a@example.com', 'a-b@example.com', 'z@example.com', '_x@example.com'];
      await suppressMany(org, emails.map((email, i) => ({ email, reason: i % 2 ? 'bounced' : 'unsubscribed' })));
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await listSuppressions(org, `limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.suppressions.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.suppressions.map((s: { email: string }) => s.email));
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual([...emails].sort((x, y) => (Buffer.from(x) < Buffer.from(y) ? -1 : 1)));
      const bounced = await listSuppressions(org, 'reason=bounced&limit=1');
      expect(bounced.body.suppressions).toEqual([{ email: 'a@example.com', reason: 'bounced', createdAt: expect.any(String) }]);
      expectRequestError(await listSuppressions(org, `reason=unsubscribed&cursor=${bounced.body.nextCursor}`), 400, 'INVALID_REQUEST');
      expectRequestError(await listSuppressions(org, `cursor=${bounced.body.nextCursor}`), 400, 'INVALID_REQUEST');
      const last = await listSuppressions(org, `reason=bounced&cursor=${bounced.body.nextCursor}`);
      expect(last.body).toEqual({ request_id: expect.any(String), suppressions: [expect.objectContaining({ email: 'z@example.com' })], nextCursor: null });
    });

    // An unknown parameter too, like the other list-style GETs (contacts, events, deliveries):
    // a misspelt filter (`reasons=`) silently ignored would list every suppression.
    it.each(['limit=0', 'limit=1001', 'limit=abc', 'limit=1.5', 'reason=spam', 'cursor=%21%21', 'cursor=e30', 'limit=1&limit=2', 'reasons=complained', 'foo=1'])(
      '%s is 400 INVALID_REQUEST',
      async (query) => expectRequestError(await listSuppressions(org, query), 400, 'INVALID_REQUEST'),
    );

    it('holds only this organization’s suppressions', async () => {
      const other = await Org.create(app.t);
      await other.suppress('theirs@example.com');
      expect((await listSuppressions(org)).body).toEqual({ request_id: expect.any(String), suppressions: [], nextCursor: null });
    });
  });

  describe('DELETE /api/v2/suppressions/{email}', () => {
    it('lifts bounced and unsubscribed; complained is 409 SUPPRESSION_LOCKED; none is 404', async () => {
      const [b, u, c] = [uniqueEmail('b'), uniqueEmail('u'), uniqueEmail('c')];
      await suppressMany(org, [{ email: b, reason: 'bounced' }, { email: u, reason: 'unsubscribed' }, { email: c, reason: 'complained' }]);
      const res = await unsuppress(org, b.toUpperCase());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ request_id: res.headers['x-request-id'], email: b, status: 'unsuppressed' });
      expect((await unsuppress(org, u)).status).toBe(200);
      expectRequestError(await unsuppress(org, c), 409, 'SUPPRESSION_LOCKED');
      expectRequestError(await unsuppress(org, b), 404, 'SUPPRESSION_NOT_FOUND');
      expectRequestError(await unsuppress(org, 'not an email'), 404, 'SUPPRESSION_NOT_FOUND');
      expectSuccess(await org.postContact({ email: b, listIds: [list] }), 'created', b);
      expectFailure(await org.postContact({ email: c, listIds: [list] }), 'SUPPRESSED_EMAIL', c, { suppressionReason: 'complained' });
    });

    it('lifts an erased (hashed) suppression; an erased complained one stays locked', async () => {
      const [u, c] = [uniqueEmail('u'), uniqueEmail('c')];
      await suppressMany(org, [{ email: u, reason: 'unsubscribed' }, { email: c, reason: 'complained' }]);
      await erase(org, u);
      await erase(org, c);
      expect((await unsuppress(org, u)).status).toBe(200);
      expectSuccess(await org.postContact({ email: u, listIds: [list] }), 'created', u);
      expectRequestError(await unsuppress(org, c), 409, 'SUPPRESSION_LOCKED');
    });
  });
});
