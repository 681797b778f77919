import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { PROJECT_ROOT } from '../database/project-root';
import {
  API_KEY_HEADER_AUTH,
  BEARER_AUTH,
  openApiModelsOf,
  REQUEST_ERROR_MODELS,
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
  // Each module describes its own models (@DescribesOpenApiModels); collected in the order the
  // app registered its modules, so the document does not depend on a list kept here.
  const described = [...app.get(ModulesContainer).values()].map((moduleRef) => openApiModelsOf(moduleRef.metatype));
  const unions = described.flatMap(({ unions = {} }) => Object.entries(unions));
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [
      ...REQUEST_ERROR_MODELS.values(),
      ...described.flatMap(({ unions = {}, extraModels = [] }) => [...Object.values(unions).flat(), ...extraModels]),
    ],
  });
  const schemas = (document.components!.schemas ??= {}) as Record<string, SchemaObject>;

  // Swagger cannot name a oneOf: the unions of result models become components of their own.
  for (const [name, models] of unions) schemas[name] = { oneOf: models.map((model) => schemaRef(model)) };

  // Swagger has no class-level `additionalProperties`: every model of this API is closed (requests
  // with another key are refused, responses never carry one).
  for (const schema of Object.values(schemas)) {
    if (schema.type === 'object' && schema.properties && schema.additionalProperties === undefined) schema.additionalProperties = false;
  }

  return document;
}

