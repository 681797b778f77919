import type { INestApplication } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import { useDocumentedRoutes } from '../metrics/route-label';
import { buildOpenApiDocument } from './openapi';

/** Where the UI is served; the JSON document is at `${DOCS_PATH}-json`. */
export const DOCS_PATH = 'api/docs';

/**
 * `GET /api/docs` (Swagger UI) and `GET /api/docs-json` (the document, generated once at start).
 * SwaggerModule registers them as plain Express routes, so the global API-key guard never sees
 * them: they need no key, and they are registered before Nest's routes and its 404 handler (call
 * before `listen`/`init`).
 */
export function setupDocs(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  useDocumentedRoutes(document);
  SwaggerModule.setup(DOCS_PATH, app, document, {
    raw: ['json'],
    customSiteTitle: 'Contact Sync API',
  });
}
