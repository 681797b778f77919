import { gzipSync } from 'node:zlib';
import { rawPostJson } from '../utils/net';
import { expectRequestError, expectSuccess, uniqueEmail, useOrgWithList } from './helpers';

/** docs/api.md#basics and #a-contact on the two POST endpoints: media type, encoding, and odd corners of shape. */
describe('request body fine points', () => {
  const ctx = useOrgWithList();

  it.each([['application/json'], ['application/json; charset=utf-8'], ['APPLICATION/JSON'], ['Application/Json; Charset=UTF-8']])(
    'Content-Type %s is accepted (media type matched case-insensitively)',
    async (type) => {
      const e = uniqueEmail();
      expectSuccess(await ctx.org.postRaw('/api/v2/contacts', JSON.stringify({ email: e, listIds: [ctx.list] }), type), 'created', e);
    },
  );

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['multipart/form-data; boundary=x'], ['application/jsonx'], ['application/xml']])(
    'Content-Type %s → 400 INVALID_REQUEST on both endpoints, nothing written',
    async (type) => {
      const e = uniqueEmail();
      expectRequestError(await ctx.org.postRaw('/api/v2/contacts', JSON.stringify({ email: e, listIds: [ctx.list] }), type), 400, 'INVALID_REQUEST');
      expectRequestError(
        await ctx.org.postRaw('/api/v2/contacts/batch', JSON.stringify({ contacts: [{ email: e, listIds: [ctx.list] }] }), type),
        400,
        'INVALID_REQUEST',
      );
      expect(await ctx.org.read(e)).toBeNull();
    },
  );

  it('a POST without Content-Type → 400 INVALID_REQUEST', async () => {
    const res = await rawPostJson(ctx.t, '/api/v2/contacts', Buffer.from(JSON.stringify({ email: uniqueEmail(), listIds: [ctx.list] })), {
      Authorization: `Bearer ${ctx.org.key}`,
    });
    expectRequestError(res, 400, 'INVALID_REQUEST');
  });

  it('a gzip-encoded body is accepted', async () => {
    const e = uniqueEmail();
    const res = await ctx.org.postBytes('/api/v2/contacts/batch', gzipSync(Buffer.from(JSON.stringify({ contacts: [{ email: e, listIds: [ctx.list] }] }))), {
      'Content-Encoding': 'gzip',
    });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ status: 'created', email: e });
  });

  it('an unsupported Content-Encoding → 400 INVALID_REQUEST', async () => {
    const res = await ctx.org.postRaw('/api/v2/contacts', JSON.stringify({ email: uniqueEmail(), listIds: [ctx.list] })).set('Content-Encoding', 'compress');
    expectRequestError(res, 400, 'INVALID_REQUEST');
  });

  it('a body that is not UTF-8 → 400 INVALID_REQUEST', async () => {
    const latin1 = Buffer.from(`{"email":"${uniqueEmail()}","listIds":["${ctx.list}"],"fields":{"city":"Z\u00fcrich"}}`, 'latin1');
    expectRequestError(await ctx.org.postBytes('/api/v2/contacts', latin1), 400, 'INVALID_REQUEST');
    // control: the same bytes in UTF-8 are accepted
    const utf8 = Buffer.from(latin1.toString('latin1'), 'utf8');
    expect((await ctx.org.postBytes('/api/v2/contacts', utf8)).status).toBe(201);
  });
});
