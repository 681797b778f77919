import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OperationObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { CONTACT_UNIONS } from '../contacts/dto/contact-responses.dto';
import { PROJECT_ROOT } from '../database/project-root';
import { StoredResponseModel } from '../requests/dto/stored-response.dto';
import {
  API_KEY_HEADER_AUTH,
  BEARER_AUTH,
  CLIENT_REQUEST_ID_PATTERN,
  REQUEST_ERROR_MODELS,
  RATE_LIMIT_HEADERS,
  REQUEST_ID_HEADER,
  schemaRef,
} from './openapi.decorators';

/** info.version: the package's version (package.json sits outside the compiled src/, so it is read, not imported). */
const { version } = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };

const DESCRIPTION =
  'Create, update and sync an organization’s contacts. Every response carries `X-Request-Id`; every ' +
  'request-level error body is `{ request_id, error: { code, message } }`. An unknown route, or a known path ' +
  'with another method, is 404 NOT_FOUND with or without a key (schema `Error404`). Responses never carry a ' +
  'stack trace, SQL or another organization’s data. Rate limits: 300 requests per organization in any ' +
  '60-second window (all keys, all endpoints), and 1,200 per IP. Operations endpoints (health, metrics at ' +
  '`GET /metrics` in Prometheus text format, these docs) need no key.';

/**
 * The OpenAPI document, generated from the controllers' and models' @nestjs/swagger metadata.
 * Post-processed only where swagger cannot express something (each step says what).
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.0.3')
    .setTitle('Contact Sync API')
    .setVersion(version)
    .setDescription(DESCRIPTION)
    .addServer('/')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <key>`' }, BEARER_AUTH)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Same key; if both are sent they must match' }, API_KEY_HEADER_AUTH)
    .addTag('Contacts', 'Contacts of the organization of the API key')
    .addTag('Organization', 'Lists and fields of the organization')
    .addTag('Operations', 'No API key, not counted against the organization')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [...REQUEST_ERROR_MODELS.values(), ...Object.values(CONTACT_UNIONS).flat(), StoredResponseModel],
  });
  const schemas = (document.components!.schemas ??= {}) as Record<string, SchemaObject>;

  // Swagger cannot name a oneOf: the unions of result models become components of their own.
  for (const [name, models] of Object.entries(CONTACT_UNIONS)) schemas[name] = { oneOf: models.map((model) => schemaRef(model)) };

  // Swagger has no class-level `additionalProperties`: every model of this API is closed (requests
  // with another key are refused, responses never carry one).
  for (const schema of Object.values(schemas)) {
    if (schema.type === 'object' && schema.properties && schema.additionalProperties === undefined) schema.additionalProperties = false;
  }

  addClientRequestIdLookup(document);
  return document;
}

/**
 * `GET /api/v2/requests?clientRequestId=<id>` (contract section 11) is served by another branch's
 * controller (w-client). Until its route carries these decorators, the operation is added here, from
 * the same models; once the route exists in the document this step leaves it alone.
 */
function addClientRequestIdLookup(document: OpenAPIObject): void {
  const path = '/api/v2/requests';
  if (document.paths[path]?.get) return;
  const byId = document.paths['/api/v2/requests/{request_id}']?.get;
  if (!byId) return;
  const headers = { ...REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS };
  const json = (schema: object) => ({ 'application/json': { schema } });
  const operation: OperationObject = {
    ...byId,
    operationId: 'findStoredResponseByClientRequestId',
    summary: 'What a POST of this organization answered under an X-Client-Request-Id (kept 24 hours)',
    description:
      'The same body as GET /api/v2/requests/{request_id}, whose `original` also carries `client_request_id`. When ' +
      'several POSTs used one id, the most recent stored answer is returned.',
    parameters: [
      {
        name: 'clientRequestId',
        in: 'query',
        required: true,
        description: 'The X-Client-Request-Id a POST sent',
        schema: { type: 'string', pattern: CLIENT_REQUEST_ID_PATTERN },
      },
    ],
    responses: {
      ...byId.responses,
      '200': { description: 'The original answer', headers, content: json(schemaRef(StoredResponseModel)) },
      '400': { description: 'The query parameter missing or invalid (INVALID_REQUEST)', headers, content: json(schemaRef('Error400')) },
      '404': {
        description: 'REQUEST_NOT_FOUND: no stored answer under this id in this organization, or expired',
        headers,
        content: json(schemaRef('Error404')),
      },
    },
  };
  document.paths[path] = { ...document.paths[path], get: operation };
}
