import type { Request } from 'express';
import type { OpenAPIObject } from '@nestjs/swagger';

/** Label of every request that matched no route (404 NOT_FOUND), so unknown paths never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

interface KnownRoute {
  method: string;
  pattern: RegExp;
  label: string;
}

/**
 * The documented routes, as Express-style labels (`/api/v2/contacts/:email`). Used only when Express
 * did not set `req.route`, i.e. when a middleware answered before routing (per-IP 429): such a
 * request still gets its route's label when its method and path name a documented operation.
 * From the generated OpenAPI document (docs/setup-docs.ts), read the first time a label needs it.
 */
let documentedRoutes: (() => Pick<OpenAPIObject, 'paths'>) | undefined;
let KNOWN_ROUTES: KnownRoute[] | undefined;

export function useDocumentedRoutes(document: () => Pick<OpenAPIObject, 'paths'>): void {
  documentedRoutes = document;
  KNOWN_ROUTES = undefined;
}

function knownRoutes(): KnownRoute[] {
  return (KNOWN_ROUTES ??= Object.entries(documentedRoutes?.().paths ?? {}).flatMap(([path, item]) => {
    const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/?$`);
    const label = path.replace(/\{([^}]+)\}/g, ':$1');
    return ['get', 'post', 'put', 'patch', 'delete']
      .filter((m) => m in item)
      .map((method) => ({ method: method.toUpperCase(), pattern, label }));
  }));
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The route pattern of a finished request: bounded, and never the raw path (which may hold an email). */
export function routeLabel(req: Request): string {
  const routePath = (req.route as { path?: unknown } | undefined)?.path;
  // Nest mounts module middleware (e.g. the request logger) as a catch-all route `/{*path}`, which
  // leaves `req.route` set on requests no controller matched: a wildcard is never an answer's route.
  if (typeof routePath === 'string' && !routePath.includes('*')) return `${req.baseUrl ?? ''}${routePath}`;
  const path = req.originalUrl.split('?')[0];
  const known = knownRoutes().find((r) => r.method === req.method && r.pattern.test(path));
  if (known) return known.label;
  // Swagger UI's static assets are served by express.static under the docs path: one label for all.
  if (req.baseUrl === '/api/docs') return '/api/docs/*';
  return UNMATCHED_ROUTE;
}

/** Methods outside the usual set share one label value, so a client cannot mint new series. */
export function methodLabel(req: Request): string {
  return KNOWN_METHODS.has(req.method) ? req.method : 'OTHER';
}
