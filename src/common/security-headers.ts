import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

/**
 * JSON answers: nothing may load or frame them. The defaults of helmet otherwise (nosniff,
 * frame, referrer and cross-origin headers); no `upgrade-insecure-requests`, which would break
 * the docs page of a service reached over plain HTTP (a local run, a TLS-terminating proxy's backend).
 */
const apiHeaders = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
});

/**
 * Swagger UI (`/api/docs`) loads its own scripts, stylesheet and favicons from the same origin,
 * has inline <style> blocks, data: images (icons) and fetches `/api/docs-json`: exactly that is allowed.
 */
const docsHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
});

/** Express matches paths case-insensitively, so the docs are recognised in any letter case. */
const isDocs = (path: string) => path.toLowerCase().startsWith('/api/docs');

/**
 * helmet's headers on every answer, with the docs' policy on the docs and the API's everywhere
 * else; `Cache-Control: no-store` on everything but the docs: answers carry personal data
 * (contacts, emails) and errors echo input, so no cache may keep them.
 */
export function securityHeadersMiddleware(req: Request, res: Response, next: NextFunction): void {
  if (isDocs(req.path)) return docsHeaders(req, res, next);
  res.setHeader('Cache-Control', 'no-store');
  apiHeaders(req, res, next);
}
