import net from 'node:net';
import { createTestAppWithOrg, type TestApp } from '../utils/test-app';
import { portOf } from '../rate-limit/support';

/** Sends raw bytes and collects everything the server writes until it closes or `settleMs` pass quietly. */
function exchange(port: number, parts: Array<string | { waitFor: RegExp; then: string }>, settleMs = 1500): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let pending = [...parts];
    let quiet: NodeJS.Timeout | undefined;
    const finish = () => {
      socket.destroy();
      resolve(received);
    };
    const armQuiet = () => {
      clearTimeout(quiet);
      quiet = setTimeout(finish, settleMs);
    };
    const sendReady = () => {
      while (pending.length > 0 && typeof pending[0] === 'string') socket.write(pending.shift() as string);
      const next = pending[0];
      if (next && typeof next !== 'string' && next.waitFor.test(received)) {
        pending = pending.slice(1);
        socket.write(next.then);
        sendReady();
      }
    };
    socket.on('connect', () => {
      sendReady();
      armQuiet();
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      sendReady();
      armQuiet();
    });
    socket.on('close', () => {
      clearTimeout(quiet);
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
});
