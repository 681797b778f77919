import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';
import { freePort, isListening } from '../utils/net';
import { CLIENT_KIND, SERVER_KIND, startOtlpReceiver, type ReceivedSpan } from '../utils/otlp-receiver';
import { PROJECT_ROOT as ROOT } from '../../src/database/project-root';
import { createOrgOn } from '../utils/fixtures';
import { startBuiltService, waitUntil, type ServiceProcess as Started } from '../utils/run-service';
import { ensureBuilt } from '../utils/built';
import { httpServerSpanAttributes } from '../utils/span-collector';

/** An organization with a key and a list on the database at `url`. */
async function seed(url: string): Promise<{ key: string; listId: string }> {
  const org = await createOrgOn(url, { lists: ['News'] });
  return { key: org.apiKey, listId: org.lists[0].id };
}

/**
 * OpenTelemetry on the production process (`node dist/main.js`, docs/production.md "Tracing"):
 * OpenTelemetry hooks `require`, which Jest's module registry bypasses, so the real service runs
 * as a child process and exports over OTLP/HTTP to a receiver in this test.
 */
jest.setTimeout(120_000);

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

beforeAll(() => {
  ensureBuilt();
});

describe('tracing (node dist/main.js with OTEL_* set)', () => {
  let database: TestDatabase;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let started: Started | undefined;
  let port: number;
  let key: string;
  let listId: string;

  const logLines = (): Array<Record<string, unknown>> =>
    started!
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  /** The line is written when the response finishes: the client may have it a moment before. */
  const completionLine = async (requestId: string | null): Promise<Record<string, unknown>> => {
    const find = () => logLines().find((l) => (l.req as { id?: string } | undefined)?.id === requestId && l.msg === 'request completed');
    await waitUntil('the request is logged', () => find() !== undefined, 30_000);
    return find()!;
  };
  const spansOf = (traceId: string): ReceivedSpan[] => receiver.spans.filter((s) => s.traceId === traceId);
  const serverSpanOf = (traceId: string) => spansOf(traceId).find((s) => s.kind === SERVER_KIND && s.scope === '@opentelemetry/instrumentation-http');

  beforeAll(async () => {
    database = await createTestDatabase();
    ({ key, listId } = await seed(database.url));
    receiver = await startOtlpReceiver();
    port = await freePort();
    started = startBuiltService({
      DATABASE_URL: database.url,
      PORT: String(port),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_SERVICE_NAME: 'contact-sync-test',
      // With REDIS_URL (CI), the limits' Redis commands must reach Redis to leave their spans: the
      // default 250 ms time-out, passed under CI's load, would leave them to the in-process store.
      REDIS_TIMEOUT_MS: '5000',
    });
    const service = started;
    await waitUntil('the service listens', () => service.output().includes('listening') && isListening(port), 60_000);
  });
  afterAll(async () => {
    if (started && started.child.exitCode === null) started.child.kill('SIGKILL');
    await receiver?.close();
    await database?.drop();
  });

  it("one trace per request under the incoming traceparent: HTTP span named by its route, every PostgreSQL statement (and Redis command), and the request's log lines carry trace_id/span_id", async () => {
    const traceId = hex(16);
    const parentId = hex(8);
    const response = await fetch(`http://127.0.0.1:${port}/api/v2/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: `00-${traceId}-${parentId}-01`, tracestate: 'vendor=abc' },
      body: JSON.stringify({ email: 'traced.person@example.com', listIds: [listId] }),
    });
    expect(response.status).toBe(201);
    const requestId = response.headers.get('x-request-id');
    await waitUntil('the HTTP span is exported', () => serverSpanOf(traceId) !== undefined, 30_000);
    await completionLine(requestId);
    // Children end before their parent, so they were in the same or an earlier batch.
    const spans = spansOf(traceId);
    const server = serverSpanOf(traceId)!;

    // The incoming traceparent is honoured: same trace, the caller's span is the parent.
    expect(server.parentSpanId).toBe(parentId);
    expect(server.name).toBe('POST /api/v2/contacts');
    expect(server.attributes['http.route']).toBe('/api/v2/contacts');
    expect(server.attributes['http.response.status_code']).toBe(201);
    expect(spans.filter((s) => s.kind === SERVER_KIND)).toHaveLength(1);
    // The HTTP instrumentation's span: its attributes, the caller's trace state, flags (sampled,
    // remote parent), no status, events or links, and the service's resource.
    expect(server.attributes).toEqual(httpServerSpanAttributes({ method: 'POST', path: '/api/v2/contacts', route: '/api/v2/contacts', status: 201, port }));
    const { version } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string };
    expect(server.otlp).toMatchObject({
      traceState: 'vendor=abc',
      flags: 0x301,
      status: { code: 0 },
      events: [],
      links: [],
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
      resource: { 'service.name': 'contact-sync-test', 'service.version': version, 'process.pid': started!.child.pid },
    });

    // Every span of the trace hangs under the HTTP span.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const span of spans) {
      let cursor: ReceivedSpan | undefined = span;
      while (cursor && cursor !== server) cursor = byId.get(cursor.parentSpanId);
      expect({ span: span.name, underHttpSpan: cursor === server }).toEqual({ span: span.name, underHttpSpan: true });
    }

    // No span per middleware, Express layer or Nest handler: the HTTP and pg instrumentations' spans only.
    expect(new Set(spans.map((s) => s.scope))).toEqual(new Set(['@opentelemetry/instrumentation-http', '@opentelemetry/instrumentation-pg', ...(process.env.REDIS_URL ? ['@opentelemetry/instrumentation-ioredis'] : [])]));

    const statements = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-pg' && s.attributes['db.query.text'] !== undefined);
    const texts = statements.map((s) => String(s.attributes['db.query.text']));
    expect(texts.some((t) => t.startsWith('BEGIN'))).toBe(true);
    expect(texts.some((t) => t.includes('INSERT INTO contacts'))).toBe(true);
    expect(texts).toContain('COMMIT');
    // The statements run inside the request's span: its children.
    expect(statements.find((s) => String(s.attributes['db.query.text']).includes('INSERT INTO contacts'))?.parentSpanId).toBe(server.spanId);
    for (const statement of statements) {
      expect(statement).toMatchObject({ kind: CLIENT_KIND, attributes: { 'db.system.name': 'postgresql', 'db.namespace': expect.any(String) } });
      // Named by the prepared statement's name where it has one, else by the text's first word.
      expect(statement.name).toMatch(/^pg\.query:\S+ \S+$/);
    }
    expect(statements.find((s) => s.attributes['db.query.text'] === 'COMMIT')!.name).toMatch(/^pg\.query:COMMIT /);
    // Parameters are never recorded, so the email is nowhere in the trace.
    expect(JSON.stringify(spans)).not.toContain('traced.person');

    if (process.env.REDIS_URL) {
      const redis = spans.filter((s) => s.scope.includes('instrumentation-ioredis'));
      expect(redis.length).toBeGreaterThan(0);
      expect(redis.every((s) => s.attributes['db.system.name'] === 'redis')).toBe(true);
    } else {
      console.log('REDIS_URL unset: the Redis spans were not checked (the rate limits run in the process)');
    }

    // Every log line of the request (here: its completion line) names the trace and the HTTP span.
    const lines = logLines().filter((line) => (line.req as { id?: string } | undefined)?.id === requestId);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatchObject({ trace_id: traceId, span_id: expect.stringMatching(/^[0-9a-f]{16}$/), trace_flags: '01' });
      expect(byId.has(line.span_id as string)).toBe(true);
    }
    expect(lines.find((line) => line.msg === 'request completed')?.span_id).toBe(server.spanId);
  });

  it('each request without a traceparent starts its own trace; URLs in spans are masked like logged paths', async () => {
    const email = 'looked.up@example.com';
    const traceIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/api/v2/contacts/${encodeURIComponent(email)}?probe=${email}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(404);
      const requestId = response.headers.get('x-request-id');
      const line = await completionLine(requestId);
      expect(line.trace_id).toMatch(/^[0-9a-f]{32}$/);
      traceIds.push(line.trace_id as string);
    }
    expect(new Set(traceIds).size).toBe(2);
    for (const traceId of traceIds) {
      await waitUntil('the HTTP span is exported', () => serverSpanOf(traceId) !== undefined, 30_000);
      const server = serverSpanOf(traceId)!;
      expect(server.parentSpanId).toBe('');
      expect(server.name).toBe('GET /api/v2/contacts/:email');
      expect(server.attributes['url.path']).toBe('/api/v2/contacts/[email]');
      expect(spansOf(traceId).some((s) => s.scope === '@opentelemetry/instrumentation-pg')).toBe(true);
      expect(JSON.stringify(spansOf(traceId))).not.toContain('looked.up');
    }
  });

  it('a caller that did not sample (traceparent flags 00) gets no spans exported, yet its log line names the trace', async () => {
    const traceId = hex(16);
    const response = await fetch(`http://127.0.0.1:${port}/api/v2/lists`, {
      headers: { authorization: `Bearer ${key}`, traceparent: `00-${traceId}-${hex(8)}-00` },
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    expect(await completionLine(requestId)).toMatchObject({ trace_id: traceId, trace_flags: '00' });
    // A later sampled request's spans arrive, so the export pipeline ran past this one.
    const later = hex(16);
    await fetch(`http://127.0.0.1:${port}/api/v2/lists`, { headers: { authorization: `Bearer ${key}`, traceparent: `00-${later}-${hex(8)}-01` } });
    await waitUntil('the later HTTP span is exported', () => serverSpanOf(later) !== undefined, 30_000);
    expect(spansOf(traceId)).toEqual([]);
  });
});

describe('tracing off (no OTEL_* asking for it)', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('serves requests without loading the OpenTelemetry SDK or any instrumentation', async () => {
    const port = await freePort();
    // The service as `node dist/main.js` starts it, plus a probe that lists the loaded modules
    // once a request has been served.
    const probe = `
      require('./dist/main.js');
      const deadline = Date.now() + 60000;
      const tick = () => fetch('http://127.0.0.1:${port}/health/ready').then((r) => {
        // Served, but not ready yet (its ping past 2 s on a loaded machine): ask again.
        if (r.status !== 200 && Date.now() < deadline) return void setTimeout(tick, 200);
        // @opentelemetry/api is the no-op API that prom-client itself loads; the SDK and the
        // instrumentations are what cost on the request path.
        const loaded = Object.keys(require.cache).filter((f) => f.includes('@opentelemetry') && !f.includes('@opentelemetry/api/'));
        console.log('PROBE ' + JSON.stringify({ status: r.status, loaded }));
        process.exit(0);
      }, () => (Date.now() > deadline ? process.exit(3) : setTimeout(tick, 200)));
      tick();`;
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', MIGRATE_ON_START: 'false' };
    for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
    const run = spawnSync(process.execPath, ['-e', probe], { cwd: ROOT, env, encoding: 'utf8', timeout: 90_000 });
    const line = run.stdout
      .split('\n')
      .find((l) => l.startsWith('PROBE '));
    expect(line).toBeDefined();
    expect(JSON.parse(line!.slice('PROBE '.length))).toEqual({ status: 200, loaded: [] });
  });

  it('an OTEL_* value the service cannot honour stops the start with one line naming it', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, OTEL_TRACES_EXPORTER: 'zipkin' };
    const run = spawnSync(process.execPath, ['dist/main.js'], { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 60, msg: 'Invalid configuration: OTEL_TRACES_EXPORTER: "zipkin" is not supported (use otlp, console or none)' });
  });
});
