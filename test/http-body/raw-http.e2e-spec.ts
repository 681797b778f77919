import net from 'node:net';
import { createTestAppWithOrg, type TestApp } from '../utils/test-app';
import { portOf } from '../rate-limit/support';
import { createApiKey } from '../utils/fixtures';

/**
 * The received text holds a whole final (non-1xx) response: its headers and the Content-Length bytes
 * of its body. Interim "100 Continue" responses before it are part of the text.
 */
function holdsFinalResponse(received: string): boolean {
  let rest = Buffer.from(received, 'utf8');
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) return false;
    const head = rest.subarray(0, headEnd).toString('utf8');
    const body = rest.subarray(headEnd + 4);
    if (/^HTTP\/1\.1 1\d\d /.test(head)) {
      rest = body;
      continue;
    }
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    return length !== null && body.length >= Number(length[1]);
  }
}

/**
 * Sends raw bytes and collects everything the server writes until it closes or a whole final
 * response has arrived (what each test asserts on), `deadlineMs` at the most. (It used to stop after
 * 1.5 s without data, counted from the connection: on a loaded CI machine the answer, or the 201
 * after a "100 Continue", came later than that, and the test saw nothing or only the 100.)
 */
function exchange(port: number, parts: Array<string | { waitFor: RegExp; then: string }>, deadlineMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let pending = [...parts];
    const finish = () => {
      clearTimeout(deadline);
      socket.destroy();
      resolve(received);
    };
    const deadline = setTimeout(finish, deadlineMs);
    const sendReady = () => {
      while (pending.length > 0 && typeof pending[0] === 'string') socket.write(pending.shift() as string);
      const next = pending[0];
      if (next && typeof next !== 'string' && next.waitFor.test(received)) {
        pending = pending.slice(1);
        socket.write(next.then);
        sendReady();
      }
    };
    socket.on('connect', () => sendReady());
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (pending.length === 0 && holdsFinalResponse(received)) return finish();
      sendReady();
    });
    socket.on('close', () => {
      clearTimeout(deadline);
      resolve(received);
    });
    socket.on('error', reject);
  });
}

describe('HTTP corner cases below Express', () => {
  let t: TestApp;
  let apiKey: string;
  let listId: string;
  beforeAll(async () => ({ t, apiKey, listId } = await createTestAppWithOrg()));
  afterAll(() => t.close());

  it('a malformed request still gets X-Request-Id and the contract error body', async () => {
    const answer = await exchange(portOf(t), ['GET /api/v2/lists HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n']);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    const requestId = /X-Request-Id: ([0-9a-f-]{36})/i.exec(head)?.[1];
    expect(JSON.parse(body)).toEqual({ request_id: requestId, error: { code: 'INVALID_REQUEST', message: expect.any(String) } });
  });

  it('headers too large: 400 INVALID_REQUEST with X-Request-Id', async () => {
    const answer = await exchange(portOf(t), [`GET /api/v2/lists HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/X-Request-Id: [0-9a-f-]{36}/i);
    expect(answer).toContain('"code":"INVALID_REQUEST"');
  });

  it('Expect: 100-continue without a key: 401 at once, never "100 Continue"', async () => {
    const answer = await exchange(portOf(t), [
      'POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500000\r\nExpect: 100-continue\r\n\r\n',
    ]);
    expect(answer).not.toContain('100 Continue');
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('Expect: 100-continue over the size limit: 413 at once, never "100 Continue"', async () => {
    const answer = await exchange(portOf(t), [
      `POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\nExpect: 100-continue\r\n\r\n`,
    ]);
    expect(answer).not.toContain('100 Continue');
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('Expect: 100-continue with a key: "100 Continue", then the body is read and answered', async () => {
    const body = JSON.stringify({ email: `continue-${Date.now()}@example.com`, listIds: [listId] });
    const answer = await exchange(portOf(t), [
      `POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      { waitFor: /100 Continue/, then: body },
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    expect(answer).toContain('"status":"created"');
  });

  it('a complete POST followed on its connection by bytes that do not parse: the POST gets its own answer (done), then the connection closes', async () => {
    for (const after of ['garbage\r\n\r\n', 'GET /api/v2/lists HTTP/1.1\r\nBad Header: y\r\n\r\n']) {
      const email = `pipelined-${Date.now()}-${after.length}@example.com`;
      const body = JSON.stringify({ email, listIds: [listId] });
      const answer = await exchange(portOf(t), [
        `POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}${after}`,
      ]);
      expect(answer).toMatch(/^HTTP\/1\.1 201 /);
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      expect(answer).toContain('"status":"created"');
      const stored = await t.http().get(`/api/v2/contacts/${encodeURIComponent(email)}`).set('Authorization', `Bearer ${apiKey}`);
      expect(stored.status).toBe(200);
    }
  });

  it('Expect: 100-continue on a route that takes no body (erase, rotate-secret): "100 Continue", then the `{}` is read and answered', async () => {
    const orgId = (await t.prisma.apiKey.findFirstOrThrow({ select: { organizationId: true } })).organizationId;
    const admin = (await createApiKey(t.prisma, orgId, { scope: 'admin' })).key;
    const paths = ['/api/v2/contacts/nobody%40example.com/erase', '/api/v2/webhooks/00000000-0000-0000-0000-000000000000/rotate-secret'];
    for (const [path, status] of [[paths[0], 200], [paths[1], 404]] as const) {
      const answer = await exchange(portOf(t), [
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
        { waitFor: /100 Continue/, then: '{}' },
      ], 10_000);
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 100 Continue\r\n\r\nHTTP/1\\.1 ${status} `));
    }
  });
});
