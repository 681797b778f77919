import { connect } from 'node:net';
import { readAll } from '../utils/net';
import { useBuiltService } from '../utils/run-service';

/**
 * No email and no API key ever reaches the logs (issue 7), whatever the path's letter case, the
 * route (known or not), or how the `@` is written. Proved on the pino output of the production
 * process at the most verbose level.
 */
jest.setTimeout(120_000);

describe('logs of node dist/main.js hold no email and no key', () => {
  const built = useBuiltService();

  it('requests of every kind: the output is JSON lines with request logs, none holding an email or the key', async () => {
    const { key, listId } = await built.org();
    const { service, port } = await built.listening({ LOG_LEVEL: 'trace' });

    const local = 'secret.person';
    const domain = 'hidden-domain.example';
    const raw = (method: string, path: string, headers: string[] = [], body = ''): Promise<string> => {
      const socket = connect(port, '127.0.0.1');
      // Connection: close: the answer ends when the service closes; 30 s is only a backstop (5 s was
      // close to what a loaded CI machine takes, and a cut answer fails the status line check).
      const answer = readAll(socket, 30_000);
      socket.write([`${method} ${path} HTTP/1.1`, 'Host: x', 'Connection: close', ...headers].join('\r\n') + '\r\n\r\n' + body);
      return answer;
    };
    const auth = `Authorization: Bearer ${key}`;
    const body = JSON.stringify({ email: `${local}@${domain}`, listIds: [listId] });
    const json = ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`];
    const requests: Array<[string, string, string[], string?]> = [
      ['GET', `/api/v2/contacts/${local}%40${domain}`, [auth]],
      ['GET', `/API/V2/CONTACTS/${local.toUpperCase()}%40${domain.toUpperCase()}`, [auth]],
      ['GET', `/Api/V2/Contacts/${local}@${domain}`, [auth]],
      ['GET', `/api/v2/contact/${local}@${domain}`, [auth]], // unknown route
      ['GET', `/nowhere/${local}%40${domain}/more`, []],
      ['GET', `/api/v2/contacts/${local}%40${domain}?email=${local}@${domain}&key=${key}`, [auth]],
      ['GET', `/api/v2/lists/${key}`, []], // a key pasted into a path
      ['GET', `/api/v2/lists`, [`Authorization: Bearer ${key}`, `X-API-Key: ${key}x`]], // 401
      ['POST', '/api/v2/contacts', [auth, ...json], body],
      ['POST', `/API/V2/CONTACTS/${local}%40${domain}`, [auth, ...json], body], // 404, another method
      ['GET', `/api/v2/contacts/${local}%ZZ${domain}`, [auth]], // broken encoding
    ];
    for (const [method, path, headers, payload] of requests) {
      const answer = await raw(method, path, headers, payload);
      expect(answer).toMatch(/^HTTP\/1\.1 \d{3} /);
    }

    // Stop the process so that every log line is flushed.
    service.child.kill('SIGTERM');
    expect(await service.exit).toEqual({ code: 0, signal: null });
    const output = service.output();
    const requestLines = output.split('\n').filter((line) => line.includes('"req"'));
    expect(requestLines.length).toBeGreaterThanOrEqual(requests.length); // the requests were logged
    expect(output).toContain('[email]');
    for (const secret of [local, domain, key, key.slice(0, 12), '%40', '@']) {
      expect({ secret, leaked: output.toLowerCase().includes(secret.toLowerCase()) }).toEqual({ secret, leaked: false });
    }
  });
});
