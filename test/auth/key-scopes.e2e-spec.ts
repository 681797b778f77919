import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { IS_PUBLIC } from '../../src/common/public.decorator';
import { SCOPES, type Scope, scopeAllows } from '../../src/auth/scope-names';
import { REQUIRED_SCOPE } from '../../src/auth/scopes';
import { createApiKey, createList, createOrganization } from '../utils/fixtures';
import { portOf, sendHeadersOnly } from '../utils/net';
import { createTestApp, type TestApp } from '../utils/test-app';
import { runSql } from '../utils/test-database';

/** A route of the app as Nest registered it, with what it declares. */
interface Route {
  method: string;
  path: string;
  isPublic: boolean;
  scope: Scope | undefined;
}

/** Every route of every controller the app registered, read from Nest's own metadata. */
function routesOf(t: TestApp): Route[] {
  const routes: Route[] = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new () => unknown) | null;
      if (!controller) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const sub = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
        const meta = (key: string) => Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller);
        routes.push({
          method: RequestMethod[method],
          path: `/${[base, sub].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/'),
          isPublic: meta(IS_PUBLIC) === true,
          scope: meta(REQUIRED_SCOPE) as Scope | undefined,
        });
      }
    }
  }
  return routes;
}

/** A concrete URL for a route: every `:param` replaced by a value that names nothing. */
const urlOf = (route: Route) => route.path.replace(/:[A-Za-z_]+/g, 'nothing-here');

describe('Key scopes (docs/api.md, "Key scopes")', () => {
  let t: TestApp;
  let routes: Route[];

  beforeAll(async () => {
    t = await createTestApp();
    routes = routesOf(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every route is either @Public() or declares its scope with @RequireScope (deny by default)', () => {
    expect(routes.length).toBeGreaterThan(10);
    const undeclared = routes.filter((r) => !r.isPublic && r.scope === undefined).map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
  });

  it('declares the scopes of the contract for the existing and the new admin routes', () => {
    const scopeOf = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)?.scope;
    expect({
      'GET /api/v2/contacts/:email': scopeOf('GET', '/api/v2/contacts/:email'),
      'GET /api/v2/lists': scopeOf('GET', '/api/v2/lists'),
      'GET /api/v2/fields': scopeOf('GET', '/api/v2/fields'),
      'GET /api/v2/requests': scopeOf('GET', '/api/v2/requests'),
      'GET /api/v2/requests/:request_id': scopeOf('GET', '/api/v2/requests/:request_id'),
      'POST /api/v2/contacts': scopeOf('POST', '/api/v2/contacts'),
      'POST /api/v2/contacts/batch': scopeOf('POST', '/api/v2/contacts/batch'),
      'POST /api/v2/lists': scopeOf('POST', '/api/v2/lists'),
      'PATCH /api/v2/lists/:id': scopeOf('PATCH', '/api/v2/lists/:id'),
      'POST /api/v2/fields': scopeOf('POST', '/api/v2/fields'),
      'PATCH /api/v2/fields/:key': scopeOf('PATCH', '/api/v2/fields/:key'),
    }).toEqual({
      'GET /api/v2/contacts/:email': 'contacts:read',
      'GET /api/v2/lists': 'contacts:read',
      'GET /api/v2/fields': 'contacts:read',
      'GET /api/v2/requests': 'contacts:read',
      'GET /api/v2/requests/:request_id': 'contacts:read',
      'POST /api/v2/contacts': 'contacts:write',
      'POST /api/v2/contacts/batch': 'contacts:write',
      'POST /api/v2/lists': 'admin',
      'PATCH /api/v2/lists/:id': 'admin',
      'POST /api/v2/fields': 'admin',
      'PATCH /api/v2/fields/:key': 'admin',
    });
  });

  it('every scope against every route: 403 INSUFFICIENT_SCOPE exactly when the key lacks the route’s scope', async () => {
    const org = await createOrganization(t.prisma);
    const keys = Object.fromEntries(
      await Promise.all(SCOPES.map(async (scope) => [scope, (await createApiKey(t.prisma, org.id, { scope })).key] as const)),
    ) as Record<Scope, string>;
    const guarded = routes.filter((r) => !r.isPublic && r.scope);
    const seen: string[] = [];
    for (const route of guarded) {
      for (const scope of SCOPES) {
        let req = t.http()[route.method.toLowerCase() as 'get'](urlOf(route)).set('Authorization', `Bearer ${keys[scope]}`);
        // A body that is malformed JSON: an allowed request is refused by the parser (400), so nothing is written.
        if (route.method === 'POST' || route.method === 'PATCH') req = req.set('Content-Type', 'application/json').send('{not json');
        const res = await req;
        const allowed = scopeAllows(scope, route.scope!);
        const outcome = `${scope} ${route.method} ${route.path}: ${res.status} ${res.body?.error?.code ?? ''}`.trim();
        seen.push(outcome);
        if (allowed) {
          expect(res.status).not.toBe(403);
          if (route.method === 'POST' || route.method === 'PATCH') expect(res.status).toBe(400);
        } else {
          expect(res.status).toBe(403);
          expect(res.body).toEqual({
            request_id: res.headers['x-request-id'],
            error: { code: 'INSUFFICIENT_SCOPE', message: expect.stringContaining(route.scope!) },
          });
        }
      }
    }
    // The three route classes were all tried, each with a key below and at or above its scope.
    expect(seen.some((s) => s.startsWith('contacts:read POST /api/v2/contacts:') && s.includes('403'))).toBe(true);
    expect(seen.some((s) => s.startsWith('contacts:write POST /api/v2/lists:') && s.includes('403'))).toBe(true);
    expect(seen.some((s) => s.startsWith('contacts:read GET /api/v2/lists:') && s.includes('200'))).toBe(true);
    // Nothing was written by any of them.
    expect(await t.prisma.contact.count({ where: { organizationId: org.id } })).toBe(0);
    expect(await t.prisma.list.count({ where: { organizationId: org.id } })).toBe(0);
    expect(await t.prisma.customField.count({ where: { organizationId: org.id } })).toBe(0);
    // Every scope against every route, one request each: 11.9 s with two Jest runs side by side on the
    // loaded 2 cores (the default bound is 30 s).
  }, 120_000);

  it('a key made before scopes existed has contacts:write: everything that worked before still works', async () => {
    const org = await createOrganization(t.prisma);
    const list = await createList(t.prisma, org.id, 'Main');
    // Inserted as the code before the migration did: no scope column named.
    const key = 'csk_old-key-from-before-scopes-' + Date.now();
    const { hashApiKey } = await import('../../src/auth/api-key');
    await runSql(
      t.database.url,
      `INSERT INTO api_keys (organization_id, prefix, key_hash) VALUES ('${org.id}', 'csk_ol', '${hashApiKey(key)}')`,
    );
    const auth = { Authorization: `Bearer ${key}` };
    await t.http().post('/api/v2/contacts').set(auth).send({ email: 'old@example.com', listIds: [list.id] }).expect(201);
    await t.http().post('/api/v2/contacts/batch').set(auth).send({ contacts: [{ email: 'old2@example.com', listIds: [list.id] }] }).expect(200);
    await t.http().get('/api/v2/contacts/old%40example.com').set(auth).expect(200);
    await t.http().get('/api/v2/lists').set(auth).expect(200);
    await t.http().get('/api/v2/fields').set(auth).expect(200);
    const refused = await t.http().post('/api/v2/lists').set(auth).send({ name: 'New' }).expect(403);
    expect(refused.body.error.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('Key scopes and the organization limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ ORG_RATE_LIMIT: '3' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a refused request counts toward the organization’s limit and writes nothing', async () => {
    const org = await createOrganization(t.prisma);
    const list = await createList(t.prisma, org.id, 'Main');
    const reader = (await createApiKey(t.prisma, org.id, { scope: 'contacts:read' })).key;
    const post = () =>
      t.http().post('/api/v2/contacts').set('Authorization', `Bearer ${reader}`).send({ email: 'no@example.com', listIds: [list.id] });
    const first = await post().expect(403);
    expect(first.headers['x-ratelimit-remaining']).toBe('2');
    const second = await post().expect(403);
    expect(second.headers['x-ratelimit-remaining']).toBe('1');
    await t.http().post('/api/v2/lists').set('Authorization', `Bearer ${reader}`).send({ name: 'X' }).expect(403);
    // The budget of 3 is spent by the refusals: the next request of the organization is 429.
    const throttled = await t.http().get('/api/v2/lists').set('Authorization', `Bearer ${reader}`).expect(429);
    expect(throttled.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(await t.prisma.contact.count({ where: { organizationId: org.id } })).toBe(0);
    expect(await t.prisma.list.count({ where: { organizationId: org.id } })).toBe(1);
    expect(await t.prisma.storedResponse.count({ where: { organizationId: org.id } })).toBe(0);
  });

  it('is decided before the body is read: a malformed body, or one never sent, still gets 403', async () => {
    const org = await createOrganization(t.prisma);
    const reader = (await createApiKey(t.prisma, org.id, { scope: 'contacts:read' })).key;
    const malformed = await t
      .http()
      .post('/api/v2/contacts/batch')
      .set('Authorization', `Bearer ${reader}`)
      .set('Content-Type', 'text/plain')
      .send('{{{ not json');
    expect(malformed.status).toBe(403);
    expect(malformed.body.error.code).toBe('INSUFFICIENT_SCOPE');
    // 100 bytes announced, none sent: an answer at all proves the body was not awaited.
    const unsent = await sendHeadersOnly(portOf(t), '/api/v2/contacts', {
      Authorization: `Bearer ${reader}`,
      'Content-Type': 'application/json',
      'Content-Length': '100',
    });
    expect(unsent.status).toBe(403);
    expect(JSON.parse(unsent.body).error.code).toBe('INSUFFICIENT_SCOPE');
  });
});
