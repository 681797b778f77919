import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { generateApiKey } from '../../src/auth/api-key';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';
import { freePort, isListening } from '../utils/net';

/**
 * The production process (`node dist/main.js`, contract section 12): SIGTERM stops accepting,
 * lets in-flight requests finish with their normal answer, and exits 0. A bad configuration value
 * stops the start with one line naming the variable.
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '..', '..');

/** An organization, an API key and a list, written with plain SQL (the service's own tables). */
async function seed(url: string): Promise<{ key: string; listId: string }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const orgId = randomUUID();
    const listId = randomUUID();
    const { key, prefix, keyHash } = generateApiKey();
    await client.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [orgId, 'Shutdown org']);
    await client.query('INSERT INTO api_keys (id, organization_id, prefix, key_hash) VALUES ($1, $2, $3, $4)', [randomUUID(), orgId, prefix, keyHash]);
    await client.query('INSERT INTO lists (id, organization_id, name) VALUES ($1, $2, $3)', [listId, orgId, 'News']);
    return { key, listId };
  } finally {
    await client.end();
  }
}

interface Started {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startService(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', MIGRATE_ON_START: 'false', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exit };
}

async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting until ${what}`);
}


/** Everything the server sends on a socket until it closes it, or until the timeout. */
function readAll(socket: Socket, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const timer = setTimeout(() => resolve(data), timeoutMs);
    socket.on('data', (c: Buffer) => (data += c.toString()));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
  });
}

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
