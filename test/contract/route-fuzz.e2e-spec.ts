import fc from 'fast-check';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../utils/test-app';
import { createApiKey, createOrgWith } from '../utils/fixtures';
import { UUID_RE } from './helpers';

/**
 * Generated input on every route (docs/api.md, "Errors": never a 5xx for what a caller sends; every
 * answer carries X-Request-Id). The routes come from the running app's OpenAPI document, so a new
 * route is fuzzed without a change here. Each gets generated paths (its parameters: real ids and
 * emails of the organization, or anything, encoded or not), query strings (its documented
 * parameters and others, repeated, bracketed), headers (content type and encoding, the key in
 * either header, tracing and client ids, arbitrary names) and bodies (shaped by the route's
 * request schema, any JSON, any bytes), with an admin key. A bounded number of runs; every
 * route's first failure, shrunk, is reported together.
 */
jest.setTimeout(120_000);

const RUNS_PER_ROUTE = 40;

interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  format?: string;
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  maximum?: number;
  maxItems?: number;
}

interface Operation {
  parameters?: Array<{ name: string; in: 'path' | 'query' | 'header'; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

interface Route {
  method: string;
  path: string;
  operation: Operation;
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer | null;
}

let t: TestApp;
let port: number;
let key: string;
let routes: Route[];
let components: Record<string, Schema>;
const fixtures = { emails: [] as string[], listIds: [] as string[], fieldKeys: [] as string[], webhookIds: [] as string[], requestIds: [] as string[] };
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function send(request: Sent): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, agent, method: request.method, path: request.path, headers: request.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error('no answer within 20 s')));
    req.end(request.body ?? undefined);
  });
}

beforeAll(async () => {
  t = await createTestApp({ IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '1000000', WEBHOOK_DELIVERY: 'false' });
  port = (t.app.getHttpServer().address() as AddressInfo).port;
  const org = await createOrgWith(t.prisma, { name: 'Fuzz org', lists: ['Main', 'Other'], fields: [{ key: 'score', type: 'number' }, { key: 'birthday', type: 'date' }, { key: 'tier', type: 'select', options: ['a', 'b'] }] });
  key = (await createApiKey(t.prisma, org.id, { scope: 'admin' })).key;
  fixtures.listIds.push(...org.lists.map((list) => list.id));
  fixtures.fieldKeys.push('score', 'birthday', 'tier', 'firstName');
  const json = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const batch = await send({
    method: 'POST',
    path: '/api/v2/contacts/batch',
    headers: json,
    body: Buffer.from(JSON.stringify({ contacts: ['ada@example.com', 'bob@example.com', 'cy@example.com'].map((email) => ({ email, listIds: fixtures.listIds })) })),
  });
  expect(batch.status).toBe(200);
  fixtures.emails.push('ada@example.com', 'bob@example.com', 'cy@example.com', 'Ada@Example.COM', 'ghost@example.com');
  fixtures.requestIds.push(batch.headers['x-request-id'] as string);
  const hook = await send({ method: 'POST', path: '/api/v2/webhooks', headers: json, body: Buffer.from(JSON.stringify({ url: 'https://93.184.216.34/hook' })) });
  expect(hook.status).toBe(201);
  fixtures.webhookIds.push((JSON.parse(hook.body) as { webhook: { id: string } }).webhook.id);

  const docs = await send({ method: 'GET', path: '/api/docs-json', headers: {}, body: null });
  expect(docs.status).toBe(200);
  const document = JSON.parse(docs.body) as { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };
  components = document.components?.schemas ?? {};
  routes = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}, 60_000);

afterAll(async () => {
  agent.destroy();
  await t?.close();
});

/** Strings that stress parsing: unicode edge cases, NUL, percent signs, near-valid values, huge. */
const nasty: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', '%', '%ZZ', '%00', '%C0%AF', '..', '.', '/', '\\', '1e3', '-0', '0x10', '-1', '9'.repeat(40), 'true', 'null', '[]', '{}', '__proto__', 'constructor', 'x'.repeat(5000)),
  fc.integer().map(String),
  fc.double().map(String),
  fc.uuid(),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('9999-12-31T23:59:59.9999Z', '0001-01-01T00:00:00Z', '+010000-01-01T00:00:00Z', '2026-01-31T12:00:00,5+01'),
  fc.emailAddress(),
);

/** Present one time in `oneIn`: an unusual part in every request would turn most requests away before they reach the route. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number) =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

/** A path or query component: encoded as a client would, or sent raw with the bytes HTTP allows. */
const component = (value: fc.Arbitrary<string>) =>
  fc.tuple(value, fc.constantFrom('encoded', 'encoded', 'raw')).map(([v, how]) => {
    const wellFormed = v.replace(/[\ud800-\udfff]/g, (c) => (/[\ud800-\udbff]/.test(c) ? '\ufffd' : '\ufffd'));
    if (how === 'encoded') return encodeURIComponent(wellFormed);
    // Raw: only what a request line can carry unescaped (no space, no control bytes, no #).
    return Array.from(Buffer.from(wellFormed, 'utf8'))
      .map((byte) => (byte > 0x20 && byte < 0x7f && byte !== 0x23 && byte !== 0x3f ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`))
      .join('');
  });

function pathValue(route: Route, name: string): fc.Arbitrary<string> {
  const real =
    name === 'email' ? fixtures.emails
    : name === 'key' ? fixtures.fieldKeys
    : name === 'request_id' ? fixtures.requestIds
    : route.path.startsWith('/api/v2/webhooks') ? fixtures.webhookIds
    : fixtures.listIds;
  return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...real).map(encodeURIComponent) }, { weight: 3, arbitrary: component(nasty) });
}

function resolve(schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let depth = 0; s.$ref && depth < 10; depth++) s = components[s.$ref.replace('#/components/schemas/', '')] ?? {};
  return s;
}

/** Values shaped by a schema (near-valid), with anything now and then. */
function fromSchema(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const wild = fc.oneof(fc.constant(null), nasty, fc.integer(), fc.boolean(), fc.jsonValue({ maxDepth: 2 }));
  if (depth > 4) return wild;
  const alternatives = s.oneOf ?? s.anyOf ?? s.allOf;
  let shaped: fc.Arbitrary<unknown>;
  if (alternatives && alternatives.length > 0) shaped = fc.oneof(...alternatives.map((alt) => fromSchema(alt, depth + 1)));
  else if (s.enum) shaped = fc.constantFrom(...s.enum);
  else if (s.type === 'object' || s.properties) {
    const properties = s.properties ?? {};
    const names = Object.keys(properties);
    shaped = fc
      .tuple(
        fc.subarray(names),
        fc.record(Object.fromEntries(names.map((name) => [name, fromSchema(properties[name], depth + 1)]))),
        fc.dictionary(nasty, wild, { maxKeys: 2 }),
        fc.boolean(),
      )
      .map(([present, values, extra, addExtra]) => ({
        ...Object.fromEntries(present.map((name) => [name, values[name]])),
        ...(addExtra ? extra : {}),
      }));
  } else if (s.type === 'array') {
    // Around a batch's limit, one element repeated: cheap to generate, still a full batch to check.
    const atLimit = fc.tuple(fromSchema(s.items, depth + 1), fc.constantFrom(1000, 1001)).map(([item, n]) => Array.from({ length: n }, () => item));
    shaped = fc.oneof({ weight: 8, arbitrary: fc.array(fromSchema(s.items, depth + 1), { maxLength: 5 }) }, { weight: 1, arbitrary: atLimit });
  } else if (s.type === 'string') {
    shaped = s.format === 'email' ? fc.oneof(fc.constantFrom(...fixtures.emails), fc.emailAddress(), nasty) : fc.oneof(nasty, fc.constantFrom(...fixtures.listIds, ...fixtures.fieldKeys, 'https://93.184.216.34/x', 'https://127.0.0.1:0/', 'http://[::1]/', 'https://hooks.example:99999/'));
  } else if (s.type === 'integer' || s.type === 'number') {
    shaped = fc.oneof(fc.integer({ min: -5, max: 1005 }), fc.integer(), fc.double({ noNaN: true }), fc.constantFrom(1e308, -1e308, 2 ** 53, 2 ** 63, 0.5));
  } else if (s.type === 'boolean') shaped = fc.boolean();
  else shaped = wild;
  return fc.oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: wild });
}

function bodyOf(route: Route): fc.Arbitrary<Buffer | null> {
  const schema = route.operation.requestBody?.content?.['application/json']?.schema;
  const json = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'null');
  return fc.oneof(
    { weight: schema ? 5 : 1, arbitrary: fromSchema(schema).map(json) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(json) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":', '[1,2', '\ufeff{}', '{"__proto__":{"x":1}}', 'null', '""', '{"a":1,"a":2}', '[]'.repeat(1000)).map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: fc.nat({ max: 60 }).map((depth) => Buffer.from('['.repeat(depth * 100) + ']'.repeat(depth * 100))) },
  );
}

/**
 * ISO 8601 instants over the whole writable range (years 0000 to +010000): a local time, often at
 * either end of the stored years, with an offset that may carry it across, and a fraction of any
 * length.
 */
const DAY = 86_400_000;
const [EARLIEST, LATEST] = [Date.parse('0001-01-01T00:00:00Z'), Date.parse('9999-12-31T23:59:59.999Z')];
const OFFSET_MAX = 23 * 60 + 59;
const anyOffset = fc.integer({ min: -OFFSET_MAX, max: OFFSET_MAX });
const instant = fc
  .tuple(
    fc.oneof(
      fc.tuple(fc.integer({ min: EARLIEST - DAY, max: LATEST + DAY }), anyOffset),
      // The last moments of year 9999, written with a negative offset (or rounded up) into year 10000, or not.
      fc.tuple(fc.integer({ min: 0, max: 3_600_000 }).map((k) => LATEST - k), fc.integer({ min: -OFFSET_MAX, max: 60 })),
      fc.tuple(fc.integer({ min: -DAY, max: DAY }).map((k) => EARLIEST + k), anyOffset),
    ),
    fc.stringMatching(/^[0-9]{0,12}$/),
  )
  .map(([[local, offset], digits]) => {
    const written = new Date(local).toISOString().replace(/^\+0?(\d{4}-)/, '$1').slice(0, -1);
    const zone = offset === 0 ? 'Z' : `${offset < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`;
    return `${written}${digits}${zone}`;
  });

/** A value for a documented query parameter: mostly shaped by its schema (or a real id), sometimes anything. */
function parameterValue(name: string, schema: Schema | undefined): fc.Arbitrary<string> {
  const s = resolve(schema);
  const shaped: fc.Arbitrary<string>[] = [];
  if (s.format === 'date-time') shaped.push(instant);
  if (s.enum) shaped.push(fc.constantFrom(...s.enum.map(String)));
  if (s.type === 'integer' || s.type === 'number') shaped.push(fc.integer({ min: (s.minimum ?? 0) - 2, max: (s.maximum ?? 1000) + 2 }).map(String));
  if (/listId/i.test(name)) shaped.push(fc.constantFrom(...fixtures.listIds));
  if (/requestId/i.test(name)) shaped.push(fc.constantFrom(...fixtures.requestIds));
  const encoded = shaped.map((arbitrary) => arbitrary.map(encodeURIComponent));
  return encoded.length === 0 ? component(nasty) : fc.oneof({ weight: 1, arbitrary: component(nasty) }, ...encoded.map((arbitrary) => ({ weight: 4, arbitrary })));
}

/**
 * A query string: each documented parameter present or not, with a value shaped by its schema now
 * and then, so that a request often gets past the first refusal; sometimes an unknown, bracketed
 * or repeated parameter, or one without a value.
 */
function queryOf(route: Route): fc.Arbitrary<string> {
  const documented = (route.operation.parameters ?? []).filter((p) => p.in === 'query');
  const pairs = fc.tuple(...documented.map((p) => sometimes(fc.tuple(fc.constant(p.name), parameterValue(p.name, p.schema)), 2)));
  const odd = fc.oneof(
    fc.tuple(fc.constantFrom('bogus', 'dryRun', 'limit', 'cursor', 'format', '__proto__', 'limit[]', 'limit[a]', 'a[b][c]', ...documented.map((p) => p.name)), component(nasty)),
    fc.tuple(component(fc.string({ maxLength: 8 })), fc.constant('')),
    fc.tuple(fc.constantFrom(...documented.map((p) => p.name), 'x'), fc.constant(null)),
  );
  return fc.tuple(pairs, sometimes(odd, 5)).map(([chosen, extra]) => {
    const all = [...chosen.filter((pair) => pair !== undefined), ...(extra ? [extra] : [])] as Array<[string, string | null]>;
    return all.length === 0 ? '' : '?' + all.map(([n, v]) => (v === null ? n : `${n}=${v}`)).join('&');
  });
}

const headerValue = fc.oneof(
  fc.stringMatching(/^[\x21-\x7e]{0,40}$/),
  fc.constantFrom('', ' ', 'a'.repeat(2000)),
);

/** The headers of a request (Content-Encoding only with a body): built once, it is costly to build. */
const headerChoices = fc.record({
  contentType: fc.oneof(
    { weight: 4, arbitrary: fc.constant('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8', 'application/json; charset=utf-16le', 'application/json; charset=bogus', 'application/merge-patch+json', 'text/plain',
        'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', '', '*/*', 'application/json;;;',
      ),
    },
  ),
  contentEncoding: sometimes(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'bogus', 'gzip, gzip'), 5),
  keyHow: fc.constantFrom('bearer', 'bearer', 'x-api-key', 'both-same', 'bearer-lower'),
  accept: sometimes(fc.constantFrom('application/json', '*/*', 'text/html', 'application/x-ndjson', 'text/csv', 'bogus'), 2),
  clientRequestId: sometimes(headerValue, 4),
  traceparent: sometimes(fc.oneof(headerValue, fc.constant('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'), fc.constant('ff-0000-00')), 4),
  expect: sometimes(fc.constantFrom('100-continue', 'bogus'), 10),
  other: sometimes(fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), headerValue, { maxKeys: 3 }), 2),
});

function headersOf(h: typeof headerChoices extends fc.Arbitrary<infer T> ? T : never, body: Buffer | null): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { ...h.other };
  if (h.keyHow === 'bearer') headers.Authorization = `Bearer ${key}`;
  if (h.keyHow === 'bearer-lower') headers.Authorization = `bearer  ${key}`;
  if (h.keyHow === 'x-api-key') headers['X-API-Key'] = key;
  if (h.keyHow === 'both-same') Object.assign(headers, { Authorization: `Bearer ${key}`, 'X-API-Key': key });
  if (h.contentType !== undefined && h.contentType !== '') headers['Content-Type'] = h.contentType;
  if (h.contentEncoding !== undefined && body) headers['Content-Encoding'] = h.contentEncoding;
  if (h.accept !== undefined) headers.Accept = h.accept;
  if (h.clientRequestId !== undefined) headers['X-Client-Request-Id'] = h.clientRequestId;
  if (h.traceparent !== undefined) headers.traceparent = h.traceparent;
  if (h.expect !== undefined) headers.Expect = h.expect;
  return headers;
}

function requestOf(route: Route): fc.Arbitrary<Sent> {
  const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const pathParts = fc.tuple(...names.map((name) => pathValue(route, name)));
  const path = (names.length === 0 ? fc.constant([] as string[]) : pathParts).map((values) => {
    let i = 0;
    return route.path.replace(/\{[^}]+\}/g, () => values[i++]);
  });
  return fc
    .tuple(path, queryOf(route), bodyOf(route), fc.boolean(), headerChoices)
    .map(([p, query, body, trailingSlash, choices]) => ({ method: route.method, path: `${p}${trailingSlash ? '/' : ''}${query}`, headers: headersOf(choices, body), body }));
}

test('every route of the OpenAPI document answers generated requests without a 5xx, with X-Request-Id', async () => {
  expect(routes.length).toBeGreaterThanOrEqual(27);
  const failures: string[] = [];
  let sent = 0;
  const started = Date.now();
  const cpu = process.cpuUsage();
  for (const route of routes) {
    const details = await fc.check(
      fc.asyncProperty(requestOf(route), async (request) => {
        sent += 1;
        const res = await send(request);
        return res.status < 500 && UUID_RE.test(String(res.headers['x-request-id'] ?? ''));
      }),
      { numRuns: RUNS_PER_ROUTE, endOnFailure: false },
    );
    if (details.failed) {
      const [request] = details.counterexample ?? [];
      const res = request ? await send(request) : undefined;
      const shown = request ? { ...request, body: request.body?.toString('utf8').slice(0, 300) ?? null } : details.errorInstance;
      failures.push(`${route.method} ${route.path}: ${res?.status} ${res?.body.slice(0, 300)}\n  ${JSON.stringify(shown).slice(0, 1200)}`);
    }
  }
  process.stdout.write(`[route-fuzz] ${routes.length} routes, ${sent} generated requests in ${((Date.now() - started) / 1000).toFixed(1)} s, ${(process.cpuUsage(cpu).user / 1e6).toFixed(1)} CPU-s\n`);
  expect(failures).toEqual([]);
});
