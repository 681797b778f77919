import net from 'node:net';
import { createTestApp, createTestAppWithOrg, type TestApp } from '../utils/test-app';
import { portOf } from '../rate-limit/support';

/**
 * HTTP hygiene (issue 7): every answer, even those decided below Express, carries X-Request-Id
 * and the contract's error body; slow clients get 408 and are cut; security headers; exactly
 * one Authorization / X-API-Key header.
 */
const HEADERS_TIMEOUT_MS = 1500;
const BODY_TIMEOUT_MS = 1500;

interface Exchange {
  /** Everything the server wrote until it closed the connection. */
  received: string;
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * Writes `parts` (each after `gapMs`) and resolves when the server closes the connection; rejects
 * if it is still open after `timeoutMs`.
 */
function untilClosed(port: number, parts: string[], gapMs: number, timeoutMs: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    let writer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      clearInterval(writer);
      socket.destroy();
      reject(new Error(`connection still open after ${timeoutMs} ms; received: ${received.slice(0, 200)}`));
    }, timeoutMs);
    socket.on('connect', () => {
      const pending = [...parts];
      socket.write(pending.shift() ?? '');
      writer = setInterval(() => {
        const next = pending.shift();
        if (next === undefined || socket.destroyed) return clearInterval(writer);
        socket.write(next);
      }, gapMs);
    });
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', () => undefined); // a reset after the answer still counts as closed
    socket.on('close', () => {
      clearTimeout(timer);
      clearInterval(writer);
      resolve({ received, closedAfterMs: Date.now() - started });
    });
  });
}

function parse(raw: string): { status: number; head: string; requestId?: string; body: unknown } {
  const at = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, at);
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
    head,
    requestId: /^X-Request-Id: (\S+)/im.exec(head)?.[1],
    body: JSON.parse(raw.slice(at + 4)) as unknown,
  };
}

describe('HTTP hygiene', () => {
  let t: TestApp;
  let apiKey: string;
  let listId: string;
  beforeAll(async () => ({ t, apiKey, listId } = await createTestAppWithOrg({ HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) })));
  afterAll(() => t.close());

  describe('Expect other than 100-continue (raw sockets: Node\'s client handles Expect itself)', () => {
    function send(method: string, path: string, headers: string[], body = ''): Promise<Exchange> {
      const head = [`${method} ${path} HTTP/1.1`, 'Host: x', 'Connection: close', ...headers].join('\r\n') + '\r\n\r\n';
      return untilClosed(portOf(t), [head + body], 100, 5000);
    }

    it('with a key: 400 INVALID_REQUEST with X-Request-Id and the error body, not a bare 417', async () => {
      const answer = parse((await send('GET', '/api/v2/lists', [`Authorization: Bearer ${apiKey}`, 'Expect: something-else'])).received);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        request_id: answer.requestId,
        error: { code: 'INVALID_REQUEST', message: expect.stringContaining('Expect') },
      });
      expect(answer.head).toMatch(/^X-RateLimit-Remaining: \d+/im); // decided after the organization limit
    });

    it('without a key: 401 first (the order of checks), on a POST too', async () => {
      const body = '{"email":"a@b.com"}';
      const answer = parse(
        (await send('POST', '/api/v2/contacts', ['Expect: 200-ok', 'Content-Type: application/json', `Content-Length: ${body.length}`], body)).received,
      );
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ request_id: answer.requestId, error: { code: 'INVALID_API_KEY', message: expect.any(String) } });
    });

    it('an unknown route with an odd Expect: 404 NOT_FOUND (routing first)', async () => {
      const answer = parse((await send('GET', '/api/v2/nowhere', ['Expect: foo'])).received);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ request_id: answer.requestId, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    });

    it('CONNECT (never routed by Express): 404 NOT_FOUND with X-Request-Id and the error body, not a silent close', async () => {
      const { received } = await untilClosed(portOf(t), ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'], 100, 5000);
      const answer = parse(received);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ request_id: answer.requestId, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    });

    it('nothing is written for a POST refused for its Expect header', async () => {
      const email = `expect-${Date.now()}@example.com`;
      const body = JSON.stringify({ email, listIds: [listId] });
      const headers = [`Authorization: Bearer ${apiKey}`, 'Expect: x-custom', 'Content-Type: application/json', `Content-Length: ${body.length}`];
      const answer = parse((await send('POST', '/api/v2/contacts', headers, body)).received);
      expect(answer.status).toBe(400);
      expect(await t.prisma.contact.count({ where: { email } })).toBe(0);
    });
  });

  describe('timeouts', () => {
    it('headers sent too slowly: 408 REQUEST_TIMEOUT with the error body soon after HEADERS_TIMEOUT_MS, connection closed', async () => {
      const parts = ['GET /api/v2/lists HTTP/1.1\r\n', 'Host: x\r\n', ...Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: y\r\n`)];
      const { received, closedAfterMs } = await untilClosed(portOf(t), parts, 500, 15_000);
      const answer = parse(received);
      expect(answer.status).toBe(408);
      expect(answer.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.body).toEqual({ request_id: answer.requestId, error: { code: 'REQUEST_TIMEOUT', message: expect.any(String) } });
      expect(answer.head).toMatch(/^Connection: close/im);
      // Node's default would be 400 after 60-90 s; allow for the 1 s check interval and a loaded machine.
      expect(closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
      expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 6000);
    });

    it('a body trickled at one byte per 400 ms: 408 REQUEST_TIMEOUT at BODY_TIMEOUT_MS, connection closed, nothing written', async () => {
      const email = `trickle-${Date.now()}@example.com`;
      const body = JSON.stringify({ email, listIds: [listId] });
      const head =
        `POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
      const { received, closedAfterMs } = await untilClosed(portOf(t), [head, ...body.split('')], 400, 15_000);
      const answer = parse(received);
      expect(answer.status).toBe(408);
      expect(answer.body).toEqual({ request_id: answer.requestId, error: { code: 'REQUEST_TIMEOUT', message: expect.any(String) } });
      expect(answer.head).toMatch(/^Connection: close/im);
      expect(closedAfterMs).toBeLessThan(BODY_TIMEOUT_MS + 6000);
      expect(await t.prisma.contact.count({ where: { email } })).toBe(0);
    });

    it('a body sent in time with pauses is still accepted', async () => {
      const email = `paused-${Date.now()}@example.com`;
      const body = JSON.stringify({ email, listIds: [listId] });
      const half = Math.floor(body.length / 2);
      const head =
        `POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nConnection: close\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
      const { received } = await untilClosed(portOf(t), [head + body.slice(0, half), body.slice(half)], 300, 10_000);
      expect(parse(received).status).toBe(201);
    });

    it('timeouts are configuration: a bad value stops the start', async () => {
      await expect(createTestApp({ BODY_TIMEOUT_MS: '0' })).rejects.toThrow(/BODY_TIMEOUT_MS/);
      await expect(createTestApp({ HEADERS_TIMEOUT_MS: 'soon' })).rejects.toThrow(/HEADERS_TIMEOUT_MS/);
    });
  });

  describe('security headers', () => {
    it.each([
      ['an authenticated read', '/api/v2/lists', true, 200],
      ['a 401', '/api/v2/lists', false, 401],
      ['an unknown route', '/api/v2/nowhere', true, 404],
      ['a contact lookup', '/api/v2/contacts/nobody%40example.com', true, 404],
    ])('%s: nosniff, no-store and a CSP that loads nothing', async (_name, path, withKey, status) => {
      const req = t.http().get(path);
      const res = withKey ? await req.set('Authorization', `Bearer ${apiKey}`) : await req;
      expect(res.status).toBe(status);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
      expect(res.headers['x-powered-by']).toBeUndefined();
    });

    it('a POST answer carrying personal data is not stored by caches', async () => {
      const res = await t
        .http()
        .post('/api/v2/contacts')
        .set('Authorization', `Bearer ${apiKey}`)
        .send({ email: `headers-${Date.now()}@example.com`, listIds: [listId] });
      expect(res.status).toBe(201);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('/api/docs: a CSP that allows exactly the same-origin assets Swagger UI loads', async () => {
      const page = await t.http().get('/api/docs/');
      expect(page.status).toBe(200);
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self' 'unsafe-inline'");
      expect(csp).toContain("img-src 'self' data:");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toContain('upgrade-insecure-requests');
      // Every script and stylesheet the page names is same-origin and served.
      const assets = [...page.text.matchAll(/(?:src|href)=["']([^"']+\.(?:js|css))["']/g)].map((m) => m[1]);
      expect(assets.length).toBeGreaterThanOrEqual(3);
      for (const asset of assets) {
        expect(asset).not.toMatch(/^(https?:)?\/\//);
        const res = await t.http().get(new URL(asset, 'http://x/api/docs/').pathname);
        expect(res.status).toBe(200);
      }
      // No inline script (script-src 'self' would block it).
      expect(page.text).not.toMatch(/<script>(?!\s*<\/script>)/);
    });
  });

  describe('exactly one Authorization / X-API-Key header', () => {
    function rawGet(headers: string[]): Promise<Exchange> {
      const head = ['GET /api/v2/lists HTTP/1.1', 'Host: x', 'Connection: close', ...headers].join('\r\n') + '\r\n\r\n';
      return untilClosed(portOf(t), [head], 100, 5000);
    }

    it('one Authorization header: accepted', async () => {
      expect(parse((await rawGet([`Authorization: Bearer ${apiKey}`])).received).status).toBe(200);
    });

    it.each([
      ['two equal Authorization headers', () => [`Authorization: Bearer ${apiKey}`, `Authorization: Bearer ${apiKey}`]],
      ['a valid then an invalid Authorization', () => [`Authorization: Bearer ${apiKey}`, 'authorization: Bearer csk_other']],
      ['two equal X-API-Key headers', () => [`X-API-Key: ${apiKey}`, `x-api-key: ${apiKey}`]],
    ])('%s: 401 INVALID_API_KEY', async (_name, headers) => {
      const answer = parse((await rawGet(headers())).received);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ request_id: answer.requestId, error: { code: 'INVALID_API_KEY', message: 'A valid API key is required' } });
      expect(answer.head).toMatch(/^WWW-Authenticate: Bearer/im);
    });
  });
});
