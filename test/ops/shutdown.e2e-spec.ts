import { connect } from 'node:net';
import { Client } from 'pg';
import { isListening, readAll } from '../utils/net';
import { useBuiltService, waitUntil } from '../utils/run-service';

/**
 * The production process (`node dist/main.js`, docs/api.md#running-and-administration): SIGTERM stops accepting,
 * lets in-flight requests finish with their normal answer, and exits 0. (A bad configuration value
 * stopping the start: test/ops/startup-failures.e2e-spec.ts.)
 */
jest.setTimeout(120_000);

describe('process lifecycle (node dist/main.js)', () => {
  const built = useBuiltService();

  // One process for both: the requests in flight get their normal answer while new connections are refused.
  it('SIGTERM with idle keep-alive, bare TCP and half-sent-header connections: those close at once, new connections are refused, requests in flight finish with their normal answer and Connection: close, exit 0', async () => {
    const { key, listId } = await built.org();
    const { service, port } = await built.listening({ SHUTDOWN_TIMEOUT_MS: '20000' });
    const open = async () => {
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      return socket;
    };
    const closedWithin = (socket: ReturnType<typeof connect>) =>
      new Promise<number>((resolve) => {
        if (socket.destroyed) return resolve(0);
        const t0 = Date.now();
        socket.once('close', () => resolve(Date.now() - t0));
      });

    // An idle keep-alive connection: one answered request, then silence.
    const idle = await open();
    const firstAnswer = readAll(idle, 1500);
    idle.write(`GET /api/v2/lists HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    expect(await firstAnswer).toMatch(/^HTTP\/1\.1 200 /);
    const bare = await open(); // connected, never sends a byte
    const halfHeaders = await open();
    halfHeaders.write('POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\nContent-Type: appl');

    // Three requests in flight: headers and half of the body sent.
    const bodies = [0, 1, 2].map((i) => JSON.stringify({ email: `in.flight.${i}@example.com`, listIds: [listId] }));
    const inFlight = await Promise.all(bodies.map(() => open()));
    const answers = inFlight.map((socket) => readAll(socket, 20_000));
    inFlight.forEach((socket, i) =>
      socket.write(
        `POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Length: ${Buffer.byteLength(bodies[i])}\r\n\r\n` + bodies[i].slice(0, 10),
      ),
    );
    await new Promise((r) => setTimeout(r, 500)); // the server has read the headers of all three

    const idleClosed = [idle, bare, halfHeaders].map(closedWithin);
    service.child.kill('SIGTERM');
    const closedAfter = await Promise.all(idleClosed);
    // "At once": well before any timeout (a loaded machine gets generous slack).
    for (const ms of closedAfter) expect(ms).toBeLessThan(3000);
    await waitUntil('new connections are refused', async () => !(await isListening(port)), 5_000);
    expect(service.child.exitCode).toBeNull(); // the requests in flight hold the drain

    inFlight.forEach((socket, i) => socket.write(bodies[i].slice(10)));
    const raw = await Promise.all(answers);
    const sentAt = Date.now();
    raw.forEach((answer, i) => {
      const [head, payload] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 201 /);
      expect(head).toMatch(/^Connection: close/im);
      expect(JSON.parse(payload)).toEqual({ request_id: expect.any(String), id: expect.any(String), email: `in.flight.${i}@example.com`, status: 'created' });
    });
    expect(await service.exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - sentAt).toBeLessThan(5_000);
    expect(await isListening(port)).toBe(false);

    const client = new Client({ connectionString: built.database.url });
    await client.connect();
    const rows = await client.query("SELECT count(*)::int AS n FROM contacts WHERE email LIKE 'in.flight.%'");
    await client.end();
    expect(rows.rows[0].n).toBe(3);
  });

  it('SIGTERM with a half-sent body (Content-Length: 100, 14 bytes sent): answered 503 with the error body and Connection: close, exit 0 within 2 s', async () => {
    const { key } = await built.org();
    const { service, port } = await built.listening();

    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const answer = readAll(socket, 15_000);
    socket.write(
      `POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Length: 100\r\n\r\n{"email": "sl',
    );
    await new Promise((r) => setTimeout(r, 500)); // the server has read the headers and waits for the body

    const t0 = Date.now();
    service.child.kill('SIGTERM');
    const exit = await service.exit;
    const exitedAfter = Date.now() - t0;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(exitedAfter).toBeLessThan(2_000);

    const [head, payload] = (await answer).split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head).toMatch(/^Connection: close/im);
    expect(head).toMatch(/^Retry-After: \d+/im);
    const requestId = /^X-Request-Id: (.+)$/im.exec(head)?.[1].trim();
    expect(JSON.parse(payload)).toEqual({
      request_id: requestId,
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/shutting down/) },
    });
    // The answer has its log line, with the status the client got.
    const logged = service
      .output()
      .split('\n')
      .filter((line: string) => line.includes(`"id":"${requestId}"`) && line.includes('"res"'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]).res.statusCode).toBe(503);
  });

  it('SIGTERM with no request in flight exits 0 promptly', async () => {
    const { service } = await built.listening();
    const t0 = Date.now();
    service.child.kill('SIGTERM');
    expect(await service.exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
