import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { FaultDatabase } from '../faults/fault-database';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';
import { createOrgOn } from '../utils/fixtures';
import { freePort, isListening, readAll } from '../utils/net';
import { startBuiltService as startService, waitUntil, type ServiceProcess as Started } from '../utils/run-service';
import { ensureBuilt } from '../utils/built';

/** An organization with a key and a list on the database at `url`. */
async function seed(url: string): Promise<{ key: string; listId: string }> {
  const org = await createOrgOn(url, { lists: ['News'] });
  return { key: org.apiKey, listId: org.lists[0].id };
}

/**
 * Logs an operator can use, read from the output of the production process (`node dist/main.js`):
 * every answer has exactly one log line with the status the client got (also the answers written
 * for requests Node's HTTP parser refused, and a broken chunked body); during a database outage,
 * at most one line per cause per second, naming the cause and counting the repeats it stands for,
 * and no stack trace anywhere.
 */
jest.setTimeout(180_000);

interface LogLine {
  level: number;
  time: number;
  msg?: string;
  req?: { id?: string; path?: string };
  res?: { statusCode: number | null };
  cause?: string;
  repeats?: number;
  atShutdown?: boolean;
  err?: unknown;
}

const parseLines = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

/** One raw exchange on a fresh connection: the answer's status and X-Request-Id. */
async function exchange(port: number, text: string, { halfClose = false, timeoutMs = 5000 } = {}): Promise<{ status: number; requestId: string; body: string }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const answer = readAll(socket, timeoutMs);
  socket.write(text);
  if (halfClose) socket.end();
  const raw = await answer;
  socket.destroy();
  const [head, ...rest] = raw.split('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
    requestId: /^X-Request-Id: (.+)$/im.exec(head)?.[1].trim() ?? '',
    body: rest.join('\r\n\r\n'),
  };
}

const linesOf = (lines: LogLine[], requestId: string) => lines.filter((l) => l.req?.id === requestId && l.res);

describe('request and fault logs of node dist/main.js', () => {
  let started: Started | undefined;

  beforeAll(() => {
    ensureBuilt();
  });
  afterEach(() => {
    if (started && started.child.exitCode === null) started.child.kill('SIGKILL');
    started = undefined;
  });

  describe('every answer, one line with its status', () => {
    let database: TestDatabase;
    beforeAll(async () => (database = await createTestDatabase()));
    afterAll(() => database?.drop());

    it('routed, refused by the HTTP parser, a broken chunked body, CONNECT, a header timeout: one line each, with the status sent', async () => {
      const { key } = await seed(database.url);
      const port = await freePort();
      started = startService({ DATABASE_URL: database.url, PORT: String(port), HEADERS_TIMEOUT_MS: '1000' });
      const service = started;
      await waitUntil('the service listens', () => service.output().includes('listening') && isListening(port), 90_000);

      const auth = `Authorization: Bearer ${key}`;
      const exchanges = {
        listed: await exchange(port, `GET /api/v2/lists HTTP/1.1\r\nHost: x\r\n${auth}\r\nConnection: close\r\n\r\n`),
        unknownRoute: await exchange(port, `GET /api/v2/csk_pasted_key/lists HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
        malformedLine: await exchange(port, 'GET /api/v2/lists HTTP/1.1 extra\r\nHost: x\r\n\r\n'),
        malformedHeader: await exchange(port, 'GET /api/v2/lists HTTP/1.1\r\nHo st: x\r\n\r\n'),
        brokenChunked: await exchange(
          port,
          `POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\n${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        ),
        connect: await exchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
        headerTimeout: await exchange(port, 'GET /api/v2/lists HTTP/1.1\r\nHost: x\r\n'),
        // The API docs' routes answer before Nest's request logger runs: their line is their own.
        docsDocument: await exchange(port, 'GET /api/docs-json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        docsPage: await exchange(port, 'GET /api/docs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        docsNoSuchPage: await exchange(port, 'GET /api/docs/no-such-page HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      };
      const expected = {
        ...{ listed: 200, unknownRoute: 404, malformedLine: 400, malformedHeader: 400, brokenChunked: 400, connect: 404, headerTimeout: 408 },
        ...{ docsDocument: 200, docsPage: 200, docsNoSuchPage: 404 },
      };
      expect(Object.fromEntries(Object.entries(exchanges).map(([name, e]) => [name, e.status]))).toEqual(expected);

      // No path (a key pasted into a URL) echoed back in an error message.
      expect(JSON.parse(exchanges.unknownRoute.body).error).toEqual({ code: 'NOT_FOUND', message: expect.not.stringContaining('csk_') });
      expect(exchanges.unknownRoute.body).not.toContain('/api/v2');

      service.child.kill('SIGTERM');
      expect(await service.exit).toEqual({ code: 0, signal: null });
      const lines = parseLines(service.output());
      for (const [name, e] of Object.entries(exchanges)) {
        const logged = linesOf(lines, e.requestId);
        expect({ name, statuses: logged.map((l) => l.res?.statusCode) }).toEqual({ name, statuses: [expected[name as keyof typeof expected]] });
      }
      expect(service.output()).not.toMatch(/request aborted/);
      expect(service.output()).not.toMatch(/"stack"/);
    });

    it('refused by the per-IP limit, before routing (429): one line each, with the status, the path masked', async () => {
      const port = await freePort();
      // Its own counters (CI's REDIS_URL is shared by the suite's files).
      started = startService({ DATABASE_URL: database.url, PORT: String(port), IP_RATE_LIMIT: '1', REDIS_KEY_PREFIX: `request-logs-${randomUUID()}:` });
      const service = started;
      await waitUntil('the service listens', () => service.output().includes('listening') && isListening(port), 90_000);

      const counted = await exchange(port, 'GET /api/v2/lists HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      const limited = [
        await exchange(port, 'GET /api/v2/contacts/ada%40example.com HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        await exchange(port, 'GET /api/v2/csk_pasted_key/lists HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        await exchange(port, 'POST /api/v2/contacts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'),
      ];
      expect([counted.status, ...limited.map((e) => e.status)]).toEqual([401, 429, 429, 429]);

      service.child.kill('SIGTERM');
      expect(await service.exit).toEqual({ code: 0, signal: null });
      const lines = parseLines(service.output());
      for (const e of [counted, ...limited]) expect(linesOf(lines, e.requestId).map((l) => l.res?.statusCode)).toEqual([e.status]);
      expect(linesOf(lines, limited[0].requestId)[0].req?.path).toBe('/api/v2/contacts/[email]');
      // Not the bare "ada": request ids are hex and may hold it.
      expect(service.output()).not.toMatch(/ada(@|%40)example|csk_pasted/);
    });
  });

  describe('a database outage', () => {
    let db: FaultDatabase;
    beforeAll(async () => (db = await FaultDatabase.start()), 60_000);
    afterAll(() => db?.destroy());

    it('one line per cause per second, naming the cause and counting its repeats; no stack; each answer its own line', async () => {
      const { key } = await seed(db.url);
      const port = await freePort();
      started = startService({ DATABASE_URL: db.url, PORT: String(port), DB_POOL_SIZE: '4', DB_CONNECT_TIMEOUT_MS: '1000' });
      const service = started;
      await waitUntil('the service listens', () => service.output().includes('listening') && isListening(port), 90_000);
      const base = `http://127.0.0.1:${port}`;
      const headers = { Authorization: `Bearer ${key}` };

      await db.stopServer();
      const statuses: number[] = [];
      const ids: string[] = [];
      const until = Date.now() + 3000;
      try {
        // 8 clients in a loop for 3 s against a stopped server: many 503s (hundreds on a quiet machine).
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (Date.now() < until) {
              const res = await fetch(`${base}/api/v2/lists`, { headers });
              await res.arrayBuffer();
              statuses.push(res.status);
              ids.push(res.headers.get('x-request-id') ?? '');
            }
          }),
        );
      } finally {
        await db.startServer();
      }
      service.child.kill('SIGTERM');
      expect(await service.exit).toEqual({ code: 0, signal: null });

      expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(10);
      const output = service.output();
      expect(output).not.toMatch(/"stack"/);
      const lines = parseLines(output);
      // Each answer: one line, its status; a 503 is a warning, not an error with a stack.
      for (const [i, id] of ids.entries()) {
        const logged = linesOf(lines, id);
        expect(logged.map((l) => [l.res?.statusCode, l.level])).toEqual([[statuses[i], statuses[i] === 503 ? 40 : 30]]);
      }
      // The causes: at most one line per cause per second, and together they count every failure.
      // Besides the database's lines, the webhook worker's statements (fan-out, claim) have theirs,
      // in the same form: one per statement and cause per second.
      const causeLines = lines.filter((l) => l.cause !== undefined);
      const headlineOf = (l: LogLine) => (l.msg ?? '').slice(0, (l.msg ?? '').indexOf(` (${l.cause}): `));
      const faults = causeLines.filter((l) => headlineOf(l) === 'Database unavailable');
      const worker = causeLines.filter((l) => headlineOf(l) !== 'Database unavailable');
      expect(worker.map(headlineOf).filter((h) => !/^(Webhook fan-out failed|Webhook take-over failed|Webhook claim failed|Recording webhook attempts failed)$/.test(h))).toEqual([]);
      // Every line names its cause: also node-postgres' "Client has encountered a connection error"
      // (a pooled connection broken between checkout and query when the server stops).
      expect(causeLines.filter((l) => l.cause === 'unclassified')).toEqual([]);
      expect(faults.length).toBeGreaterThan(0);
      expect(faults.length).toBeLessThan(30);
      // A cause line stands for failures of many requests: it carries no one request's id (nor trace).
      expect(causeLines.filter((l) => l.req !== undefined)).toEqual([]);
      const byCause = new Map<string, LogLine[]>();
      for (const line of causeLines) byCause.set(`${headlineOf(line)} ${line.cause!}`, [...(byCause.get(`${headlineOf(line)} ${line.cause!}`) ?? []), line]);
      expect([...byCause.keys()]).toContain('Database unavailable ECONNREFUSED');
      for (const causeLines of byCause.values()) {
        // The shutdown's own line (the repeats counted since the last one, so none goes unreported)
        // may come inside the second: it is marked, and there is at most one, the last.
        const atShutdown = causeLines.filter((l) => l.atShutdown);
        expect(atShutdown.length).toBeLessThanOrEqual(1);
        if (atShutdown.length) expect(causeLines.at(-1)).toBe(atShutdown[0]);
        const duringOutage = causeLines.filter((l) => !l.atShutdown);
        for (let i = 1; i < duringOutage.length; i++) expect(duringOutage[i].time - duringOutage[i - 1].time).toBeGreaterThanOrEqual(990);
      }
      const counted = faults.reduce((sum, l) => sum + 1 + (l.repeats ?? 0), 0);
      expect(counted).toBeGreaterThanOrEqual(statuses.filter((s) => s === 503).length);
    });
  });
});
