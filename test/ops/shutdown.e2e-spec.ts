import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';
import { freePort, isListening } from '../utils/net';
import { ROOT, readAll, seed, startService, waitUntil, type Started } from '../utils/service-process';

/**
 * The production process (`node dist/main.js`, contract section 12): SIGTERM stops accepting,
 * lets in-flight requests finish with their normal answer, and exits 0. A bad configuration value
 * stops the start with one line naming the variable.
 */
jest.setTimeout(120_000);

describe('process lifecycle (node dist/main.js)', () => {
  let database: TestDatabase;
  let started: Started | undefined;

  beforeAll(async () => {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'pipe' });
    database = await createTestDatabase();
  });
  afterEach(() => {
    if (started && started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
    started = undefined;
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('SIGTERM: the in-flight request gets its normal answer, new connections are refused, exit code 0', async () => {
    const { key, listId } = await seed(database.url);
    const port = await freePort();
    started = startService({ DATABASE_URL: database.url, PORT: String(port) });
    const service = started;
    await waitUntil('the service listens', () => service.output().includes('listening') && isListening(port));

    const body = JSON.stringify({ email: 'slow.sender@example.com', listIds: [listId] });
    const half = Math.floor(body.length / 2);
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const answer = readAll(socket, 15_000);
    socket.write(
      'POST /api/v2/contacts HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
        body.slice(0, half),
    );
    // Let the server read the headers and start on the request before it is told to stop.
    await new Promise((r) => setTimeout(r, 300));

    service.child.kill('SIGTERM');
    await waitUntil('new connections are refused', async () => !(await isListening(port)), 5_000);
    expect(service.child.exitCode).toBeNull(); // still draining the in-flight request

    socket.write(body.slice(half));
    const raw = await answer;
    const [head, payload] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 201 /);
    expect(JSON.parse(payload)).toEqual({
      request_id: expect.any(String),
      id: expect.any(String),
      email: 'slow.sender@example.com',
      status: 'created',
    });

    expect(await service.exit).toEqual({ code: 0, signal: null });
    expect(await isListening(port)).toBe(false);

    // The answer was not a fluke of the response path: the contact is in the database.
    const client = new Client({ connectionString: database.url });
    await client.connect();
    const rows = await client.query('SELECT email FROM contacts WHERE email = $1', ['slow.sender@example.com']);
    await client.end();
    expect(rows.rowCount).toBe(1);
  });

  it('SIGTERM with idle keep-alive, bare TCP and half-sent-header connections: those close at once, requests in flight finish with Connection: close, exit 0', async () => {
    const { key, listId } = await seed(database.url);
    const port = await freePort();
    started = startService({ DATABASE_URL: database.url, PORT: String(port), SHUTDOWN_TIMEOUT_MS: '20000' });
    const service = started;
    await waitUntil('the service listens', () => service.output().includes('listening') && isListening(port));
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
    expect(service.child.exitCode).toBeNull(); // the requests in flight hold the drain

    inFlight.forEach((socket, i) => socket.write(bodies[i].slice(10)));
    const raw = await Promise.all(answers);
    const sentAt = Date.now();
    raw.forEach((answer, i) => {
      const [head, payload] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 201 /);
      expect(head).toMatch(/^Connection: close/im);
      expect(JSON.parse(payload)).toMatchObject({ email: `in.flight.${i}@example.com`, status: 'created' });
    });
    expect(await service.exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - sentAt).toBeLessThan(5_000);

    const client = new Client({ connectionString: database.url });
    await client.connect();
    const rows = await client.query("SELECT count(*)::int AS n FROM contacts WHERE email LIKE 'in.flight.%'");
    await client.end();
    expect(rows.rows[0].n).toBe(3);
  });

  it('SIGTERM with no request in flight exits 0 promptly', async () => {
    const port = await freePort();
    started = startService({ DATABASE_URL: database.url, PORT: String(port) });
    const service = started;
    await waitUntil('the service listens', () => service.output().includes('listening') && isListening(port));
    const t0 = Date.now();
    service.child.kill('SIGTERM');
    expect(await service.exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it.each([
    ['PORT', 'abc'],
    ['ORG_RATE_LIMIT', '-5'],
    ['DATABASE_URL', 'mysql://nope'],
  ])('a bad %s=%s stops the start with a non-zero exit and one line naming the variable', async (name, value) => {
    started = startService({ DATABASE_URL: database.url, PORT: '0', [name]: value });
    const { code } = await started.exit;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    const lines = started.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${name}=`);
    expect(lines[0]).not.toMatch(/\bat .*\.js:\d+/); // no stack trace
  });
});
