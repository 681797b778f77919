import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createApiKey } from '../utils/fixtures';
import { createTestAppWithOrg, type TestApp } from '../utils/test-app';
import { portOf, sendHeadersOnly } from '../rate-limit/support';
import { rawPost } from '../utils/net';

const LIMIT = 1_048_576;

/** Body rules of docs/api.md#basics, on POST /api/v2/contacts of the real app. */
describe('JSON request bodies', () => {
  let t: TestApp;
  let apiKey: string;
  let listId: string;
  beforeAll(async () => ({ t, apiKey, listId } = await createTestAppWithOrg()));
  afterAll(() => t.close());

  let n = 0;
  /** A valid new contact, padded with JSON whitespace to exactly `size` bytes. */
  const contactOfSize = (size: number) => {
    const json = JSON.stringify({ email: `body-${++n}-${Date.now()}@example.com`, listIds: [listId] });
    return Buffer.from(json + ' '.repeat(size - Buffer.byteLength(json)));
  };
  /** A raw POST (supertest would JSON-encode a Buffer) with its Content-Length. */
  const post = async (body: Buffer | string, contentType = 'application/json', headers: Record<string, string> = {}) => {
    const bytes = Buffer.from(body);
    const headersToSend = { Authorization: `Bearer ${apiKey}`, 'Content-Type': contentType, 'Content-Length': String(bytes.length), ...headers };
    const res = await rawPost(portOf(t), '/api/v2/contacts', headersToSend, [bytes]);
    return { status: res.status, body: JSON.parse(res.body) };
  };
  const auth = () => ({ Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' });
  const expectError = (res: { status: number; body: { error: { code: string } } }, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  };

  describe('size', () => {
    it('accepts a body of exactly 1,048,576 bytes and refuses one byte more with 413', async () => {
      expect((await post(contactOfSize(LIMIT))).status).toBe(201);
      expectError(await post(contactOfSize(LIMIT + 1)), 413, 'PAYLOAD_TOO_LARGE');
    });

    it('refuses a Content-Length over the limit before reading the body', async () => {
      const res = await sendHeadersOnly(portOf(t), '/api/v2/contacts', { ...auth(), 'Content-Length': String(LIMIT + 1) });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('stops reading a chunked body as soon as it passes the limit', async () => {
      // Never finished: the 413 comes from the first bytes past the limit, not from the end.
      const res = await rawPost(portOf(t), '/api/v2/contacts', { ...auth(), 'Transfer-Encoding': 'chunked' }, [contactOfSize(LIMIT + 10)], {
        end: false,
      });
      expect(res.status).toBe(413);
      expect(res.headers.connection).toBe('close');
    });

    it.each([
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ])('limits the decoded size of %s bodies: within the limit accepted, a bomb cut off at the limit', async (encoding, compress) => {
      const ok = await post(compress(contactOfSize(LIMIT)), 'application/json', { 'Content-Encoding': encoding });
      expect(ok.status).toBe(201);
      // 64 MiB of zeros in a few kilobytes, and the request never finished: an answer proves the
      // server stopped inflating at the limit instead of inflating (and waiting for) everything.
      const bomb = compress(Buffer.alloc(64 * LIMIT));
      expect(bomb.length).toBeLessThan(LIMIT / 4);
      const res = await rawPost(portOf(t), '/api/v2/contacts', { ...auth(), 'Content-Encoding': encoding, 'Transfer-Encoding': 'chunked' }, [bomb], {
        end: false,
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error.code).toBe('PAYLOAD_TOO_LARGE');
      // 64 MiB compressed here and inflated up to the limit there: br took 14.8 s with two Jest runs
      // side by side on the loaded 2 cores (the default bound is 30 s).
    }, 120_000);
  });

  describe('content type and encoding', () => {
    it('matches application/json case-insensitively, with a UTF-8 charset parameter', async () => {
      expect((await post(contactOfSize(100), 'Application/JSON')).status).toBe(201);
      expect((await post(contactOfSize(100), 'application/json; charset=utf-8')).status).toBe(201);
      expect((await post(contactOfSize(100), 'application/json;Charset="UTF-8"')).status).toBe(201);
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'application/json-patch+json'])(
      'refuses Content-Type %s with 400 INVALID_REQUEST',
      async (type) => {
        expectError(await post(contactOfSize(100), type), 400, 'INVALID_REQUEST');
      },
    );

    it('refuses a POST without Content-Type', async () => {
      const res = await rawPost(portOf(t), '/api/v2/contacts', { Authorization: `Bearer ${apiKey}` }, [contactOfSize(100)]);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error).toEqual({ code: 'INVALID_REQUEST', message: 'Content-Type must be application/json' });
    });

    it.each(['iso-8859-1', 'us-ascii', 'utf-16le'])('accepts any charset parameter when the body is UTF-8 (charset=%s)', async (charset) => {
      expect((await post(contactOfSize(100), `application/json; charset=${charset}`)).status).toBe(201);
    });

    it('refuses a body that is not UTF-8 whatever its charset parameter says', async () => {
      const utf16 = Buffer.from(contactOfSize(100).toString(), 'utf16le');
      expectError(await post(utf16, 'application/json; charset=utf-16le'), 400, 'INVALID_REQUEST');
      const latin1 = Buffer.from('{"email":"caf\xe9@example.com"}', 'latin1');
      expectError(await post(latin1, 'application/json; charset=iso-8859-1'), 400, 'INVALID_REQUEST');
    });

    it.each(['compress', 'zstd', 'gzip, gzip', 'bogus'])('refuses Content-Encoding %s with 400', async (encoding) => {
      expectError(await post(contactOfSize(100), 'application/json', { 'Content-Encoding': encoding }), 400, 'INVALID_REQUEST');
    });

    it('refuses a body that does not decode as its Content-Encoding', async () => {
      expectError(await post(contactOfSize(100), 'application/json', { 'Content-Encoding': 'gzip' }), 400, 'INVALID_REQUEST');
    });
  });

  describe('JSON', () => {
    it('refuses malformed JSON with 400 INVALID_REQUEST', async () => {
      const res = await post('{"email": "a@example.com",');
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toBe('Request body is not valid JSON');
    });

    it('refuses an empty body (malformed JSON)', async () => {
      const res = await post('');
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toMatch(/empty/);
      // Without any Content-Length either.
      const none = await rawPost(portOf(t), '/api/v2/contacts', auth(), []);
      expect(none.status).toBe(400);
    });

    it('refuses a body that is not UTF-8', async () => {
      const latin1 = Buffer.from(`{"email":"caf\xe9@example.com","listIds":["${listId}"]}`, 'latin1');
      const res = await post(latin1);
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toMatch(/UTF-8/);
    });

    it('accepts a UTF-8 byte order mark', async () => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), contactOfSize(100)]);
      expect((await post(body)).status).toBe(201);
    });
  });

  describe('order of checks: per-IP → key → organization → size → JSON → shape', () => {
    it('answers an unauthenticated request without reading its body', async () => {
      const res = await sendHeadersOnly(portOf(t), '/api/v2/contacts', { 'Content-Type': 'application/json', 'Content-Length': String(50 * LIMIT) });
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).error.code).toBe('INVALID_API_KEY');
    });

    it('checks the key before content type and JSON', async () => {
      const res = await t.http().post('/api/v2/contacts').set('Content-Type', 'text/plain').send('{nope');
      expectError(res, 401, 'INVALID_API_KEY');
    });

    it('checks the size before the JSON', async () => {
      expectError(await post(Buffer.alloc(LIMIT + 1, '{')), 413, 'PAYLOAD_TOO_LARGE');
    });

    it('checks the JSON before the shape', async () => {
      const malformed = await post('[{"email": 1,]');
      expect(malformed.body.error.message).toBe('Request body is not valid JSON');
      const wrongShape = await post('[]');
      expectError(wrongShape, 400, 'INVALID_REQUEST');
      expect(wrongShape.body.error.message).not.toBe('Request body is not valid JSON');
    });
  });

  describe('where the body is read: by the last guard, after every check, on POST and PATCH', () => {
    const headersOnly = (path: string, headers: Record<string, string>) =>
      sendHeadersOnly(portOf(t), path, { 'Content-Type': 'application/json', 'Content-Length': String(50 * LIMIT), ...headers });

    it('a key without the route\'s scope: 403 without reading the body', async () => {
      const orgId = (await t.prisma.apiKey.findFirstOrThrow({ select: { organizationId: true } })).organizationId;
      const reader = (await createApiKey(t.prisma, orgId, { scope: 'contacts:read' })).key;
      // 50 MiB announced, none sent: an answer proves nothing waited for the body.
      const res = await headersOnly('/api/v2/contacts', { Authorization: `Bearer ${reader}` });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe('INSUFFICIENT_SCOPE');
    });

    it('the route\'s own checks (X-Client-Request-Id, ?dryRun) come before the body too', async () => {
      const header = await headersOnly('/api/v2/contacts', { Authorization: `Bearer ${apiKey}`, 'X-Client-Request-Id': 'no spaces' });
      expect([header.status, JSON.parse(header.body).error.code]).toEqual([400, 'INVALID_REQUEST']);
      const dryRun = await headersOnly('/api/v2/contacts/batch?dryRun=maybe', { Authorization: `Bearer ${apiKey}` });
      expect([dryRun.status, JSON.parse(dryRun.body).error]).toEqual([400, { code: 'INVALID_REQUEST', message: 'dryRun must be true or false' }]);
    });

    it('every POST and PATCH route reads its body with the same rules, with nothing declared at the route', async () => {
      const orgId = (await t.prisma.apiKey.findFirstOrThrow({ select: { organizationId: true } })).organizationId;
      const admin = (await createApiKey(t.prisma, orgId, { scope: 'admin' })).key;
      const routes: Array<[string, string]> = [
        ['post', '/api/v2/contacts'],
        ['post', '/api/v2/contacts/batch'],
        ['post', '/api/v2/lists'],
        ['patch', `/api/v2/lists/${listId}`],
        ['post', '/api/v2/fields'],
        ['post', '/api/v2/webhooks'],
        ['post', '/api/v2/suppressions'],
        ['post', `/api/v2/contacts/${encodeURIComponent('a@example.com')}/erase`],
      ];
      for (const [method, path] of routes) {
        const send = () => t.http()[method as 'post' | 'patch'](path).set('Authorization', `Bearer ${admin}`);
        const malformed = await send().set('Content-Type', 'application/json').send('{"name":');
        expect([method, path, malformed.status, malformed.body.error?.message]).toEqual([method, path, 400, 'Request body is not valid JSON']);
        const wrongType = await send().set('Content-Type', 'text/plain').send('{}');
        expect([method, path, wrongType.status, wrongType.body.error?.message]).toEqual([method, path, 400, 'Content-Type must be application/json']);
        if (method === 'post') {
          const tooLarge = await headersOnly(path, { Authorization: `Bearer ${admin}` }); // sendHeadersOnly sends a POST
          expect([path, tooLarge.status]).toEqual([path, 413]);
        }
      }
    });

    it('other methods never have a body read: a GET with a malformed JSON body is answered as usual', async () => {
      const res = await t.http().get('/api/v2/lists').set('Authorization', `Bearer ${apiKey}`).set('Content-Type', 'application/json').send('{"nope');
      expect(res.status).toBe(200);
    });
  });
});
