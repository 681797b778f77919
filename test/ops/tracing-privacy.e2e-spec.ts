import { spawn, type ChildProcess } from 'node:child_process';
import { PROJECT_ROOT as ROOT } from '../../src/database/project-root';
import { ensureBuilt } from '../utils/built';
import { createOrgOn } from '../utils/fixtures';
import { freePort, isListening } from '../utils/net';
import { waitUntil } from '../utils/run-service';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';

/**
 * No email, API key or webhook secret in any span that leaves the process, over every route of
 * the OpenAPI document (a new route is driven without changing this test). The production build
 * runs in a child process (OpenTelemetry hooks `require`, which Jest's module registry bypasses)
 * with tracing started by src/tracing/start-tracing.ts, every span sampled, and an
 * InMemorySpanExporter behind the same privacy step as the OTLP exporter; the test asks it for its
 * spans over IPC.
 */
jest.setTimeout(180_000);

interface CapturedSpan {
  name: string;
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes?: Record<string, unknown> }>;
  status: { code: number; message?: string };
}

/** The child: tracing first (as src/tracing/register.ts does), then the service as `node dist/main.js`. */
const CHILD = `
  const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace-node');
  const { startTracing } = require('./dist/tracing/start-tracing');
  const exporter = new InMemorySpanExporter();
  const settings = { enabled: true, exporters: [], protocol: 'http/protobuf', propagators: ['tracecontext'], sampler: { name: 'always_on', ratio: 1 } };
  const provider = startTracing(settings, [exporter]);
  process.on('message', () => provider.forceFlush().then(() => process.send(exporter.getFinishedSpans().map((span) => ({
    name: span.name, kind: span.kind, scope: span.instrumentationScope.name, attributes: span.attributes,
    events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })), status: span.status,
  })))));
  require('./dist/main.js');
`;

const EMAIL = 'Private.Person+tag@Example.com';
const HOOK = 'https://93.184.216.34/hooks/contact-sync';

describe('tracing privacy (every route, in-memory exporter)', () => {
  let database: TestDatabase;
  let child: ChildProcess;
  let output = '';

  beforeAll(async () => {
    ensureBuilt();
    database = await createTestDatabase();
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await database?.drop();
  });

  it('no span name, attribute, event or status carries the email, the key or the webhook secret', async () => {
    const org = await createOrgOn(database.url, { lists: ['News'], scope: 'admin', fields: [{ key: 'nickname', type: 'text' }] });
    const key = org.apiKey;
    const listId = org.lists[0].id;
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      MIGRATE_ON_START: 'false',
      LOG_LEVEL: 'info',
      IP_RATE_LIMIT: '1000000',
      ORG_RATE_LIMIT: '1000000',
      WEBHOOK_DELIVERY: 'false',
    };
    for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
    child = spawn(process.execPath, ['-e', CHILD], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil('the service listens', () => (child.exitCode === null ? isListening(port) : Promise.reject(new Error(output))), 90_000);

    const base = `http://127.0.0.1:${port}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, requestId: response.headers.get('x-request-id') ?? '', body: await response.text() };
    };
    // Rows the routes can find: the contact, a webhook (its secret is shown once, here).
    expect((await call('POST', '/api/v2/contacts', { email: EMAIL, listIds: [listId] })).status).toBe(201);
    const created = await call('POST', '/api/v2/webhooks', { url: HOOK });
    expect(created.status).toBe(201);
    const { webhook, secret } = JSON.parse(created.body) as { webhook: { id: string }; secret: string };
    expect(secret).toMatch(/^whsec_/);

    const document = JSON.parse((await call('GET', '/api/docs-json')).body) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => ({ method: method.toUpperCase(), path })),
    );
    expect(operations.length).toBeGreaterThan(20);
    // Removals last, so that every other route finds its rows.
    const last = (op: { method: string; path: string }) => Number(op.method === 'DELETE' || op.path.endsWith('/erase'));
    operations.sort((a, b) => last(a) - last(b));

    // A parameter this test does not know is given the email: a new route is driven with it in play.
    const valueOf = (name: string, path: string): string =>
      ({ id: path.includes('/webhooks/') ? webhook.id : listId, listId, key: 'nickname', request_id: created.requestId })[name] ?? EMAIL;
    // Bodies that pass validation, so that each route runs to its SQL; another route is sent the email.
    const bodies: Record<string, unknown> = {
      'POST /api/v2/contacts': { email: EMAIL, listIds: [listId], fields: { nickname: EMAIL } },
      'POST /api/v2/contacts/batch': { contacts: [{ email: EMAIL, listIds: [listId] }] },
      'POST /api/v2/fields': { key: 'alias', type: 'text' },
      'PATCH /api/v2/fields/{key}': { required: false },
      'POST /api/v2/lists': { name: `List of ${EMAIL}` },
      'PATCH /api/v2/lists/{id}': { name: `Renamed for ${EMAIL}` },
      'POST /api/v2/lists/{listId}/contacts/remove': { emails: [EMAIL] },
      'POST /api/v2/suppressions': { suppressions: [{ email: EMAIL, reason: 'bounced' }] },
      'POST /api/v2/webhooks': { url: `${HOOK}?token=${secret}` },
      'PATCH /api/v2/webhooks/{id}': { url: `${HOOK}/${secret}` },
      'POST /api/v2/webhooks/{id}/rotate-secret': undefined,
      'POST /api/v2/contacts/{email}/erase': undefined,
    };
    const answers: string[] = [];
    for (const { method, path } of operations) {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(valueOf(name, path)));
      const route = `${method} ${path}`;
      const body = method === 'GET' || method === 'DELETE' ? undefined : route in bodies ? bodies[route] : { email: EMAIL };
      answers.push(`${method} ${path} ${(await call(method, url, body)).status}`);
      // The same route with the three in its query string, where a caller may wrongly put them.
      const query = `?email=${encodeURIComponent(EMAIL)}&api_key=${key}&secret=${encodeURIComponent(secret)}`;
      await call(method, url + query, body);
      // And as a body's unknown keys, which the answer's error message (and the span's exception event) names.
      if (body !== undefined) await call(method, url, { [EMAIL]: 1, [key]: 2, [secret]: 3 });
    }

    child.send('spans');
    const spans = await new Promise<CapturedSpan[]>((resolve) => child.once('message', (message) => resolve(message as CapturedSpan[])));
    // Every route but the ignored probes has its HTTP server span, named by its template.
    const served = new Set(spans.filter((span) => span.kind === 1).map((span) => span.name));
    const missing = operations
      .filter(({ path }) => !path.startsWith('/health/'))
      .map(({ method, path }) => `${method} ${path.replace(/\{(\w+)\}/g, ':$1')}`)
      .filter((name) => !served.has(name));
    expect({ missing, answers }).toEqual({ missing: [], answers });
    // The routes ran to their statements, which are traced.
    expect(spans.some((span) => span.scope.includes('instrumentation-pg'))).toBe(true);

    const secrets = [EMAIL, 'private.person', encodeURIComponent(EMAIL), key, secret, secret.slice('whsec_'.length)].map((s) => s.toLowerCase());
    const leaks = spans.flatMap((span) => {
      const text = JSON.stringify(span).toLowerCase();
      return secrets.filter((s) => text.includes(s)).map((s) => ({ span: span.name, leaks: s }));
    });
    expect(leaks).toEqual([]);
  });
});
