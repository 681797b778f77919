import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { useDocumentedRoutes } from '../metrics/route-label';
import { logAnswerBeforeRequestLogger, seenByRequestLogger } from '../logging/answer-line';
import { buildOpenApiDocument } from './openapi';

/** Where the UI is served; the JSON document is at `${DOCS_PATH}-json`. */
export const DOCS_PATH = 'api/docs';
const DOCS_PREFIX = `/${DOCS_PATH}`; // also /api/docs-json

/** Each app's document, built once (openApiDocumentOf). */
const documents = new WeakMap<INestApplication, OpenAPIObject>();

/**
 * The app's OpenAPI document, generated on first use and then kept. main.ts asks for it before the
 * service listens (so no request waits on it); a test app builds it only if a test needs it (the docs
 * routes, or the route label of a request answered before routing): building it costs a noticeable
 * share of an app start, which the test suite's many app starts would otherwise each pay.
 */
export function openApiDocumentOf(app: INestApplication): OpenAPIObject {
  let document = documents.get(app);
  if (!document) documents.set(app, (document = buildOpenApiDocument(app)));
  return document;
}

/**
 * `GET /api/docs` (Swagger UI) and `GET /api/docs-json` (the document, openApiDocumentOf).
 * SwaggerModule registers them as plain Express routes, so the global API-key guard never sees
 * them: they need no key, and they are registered before Nest's routes and its 404 handler (call
 * before `listen`/`init`).
 */
export function setupDocs(app: INestApplication): void {
  useDocumentedRoutes(() => openApiDocumentOf(app));
  // Every answer has one log line (docs/reliability.md, section 7). These routes answer before
  // Nest's request logger runs, so theirs is written here; a docs path no route has goes on to
  // Nest's 404, logged as usual (the check at the end keeps it to one line).
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.path.startsWith(DOCS_PREFIX)) {
      res.once('finish', () => {
        if (!seenByRequestLogger(req)) logAnswerBeforeRequestLogger(req, res.statusCode, 'request completed');
      });
    }
    next();
  });
  SwaggerModule.setup(DOCS_PATH, app, () => openApiDocumentOf(app), {
    raw: ['json'],
    customSiteTitle: 'Contact Sync API',
  });
}
