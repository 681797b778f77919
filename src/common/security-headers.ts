import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

/**
 * JSON answers: nothing may load or frame them. The defaults of helmet otherwise (nosniff,
 * frame, referrer and cross-origin headers); no `upgrade-insecure-requests`, which would break
 * the docs page of a service reached over plain HTTP (a local run, a TLS-terminating proxy's backend).
 */
export const apiHeaders = helmet({
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

type HeaderStep = { set: string; value: string | number | readonly string[] } | { remove: string };

/**
 * What a helmet middleware does to a response, recorded once on a stand-in response: helmet's
 * headers here are constants (no per-request directive, no nonce). Undefined when it did anything
 * else or did not finish synchronously (a helmet version that does): it then runs per request.
 */
function recordedSteps(middleware: ReturnType<typeof helmet>): HeaderStep[] | undefined {
  const steps: HeaderStep[] = [];
  let finished = false;
  let other = false;
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => void steps.push({ set: name, value }),
    removeHeader: (name: string) => void steps.push({ remove: name }),
  };
  const recorder = new Proxy(res, {
    get: (target, key) => (key in target ? target[key as keyof typeof target] : ((other = true), undefined)),
  });
  const request = new Proxy({}, { get: () => ((other = true), undefined) }); // a header that depends on the request: not recorded
  middleware(request as Request, recorder as unknown as Response, (error?: unknown) => {
    finished = error === undefined;
  });
  return finished && !other ? steps : undefined;
}

/**
 * apiHeaders' steps, replayed on each answer: the same headers in the same order as running helmet's
 * dozen chained middlewares per request, without them (docs/performance.md, "Per-request fixed cost").
 */
export const apiSteps = recordedSteps(apiHeaders);

function applyApiHeaders(req: Request, res: Response, next: NextFunction): void {
  if (!apiSteps) return apiHeaders(req, res, next);
  for (const step of apiSteps) {
    if ('set' in step) res.setHeader(step.set, step.value);
    else res.removeHeader(step.remove);
  }
  next();
}

/** Express matches paths case-insensitively, so the docs are recognised in any letter case. */
const isDocs = (path: string) => path.toLowerCase().startsWith('/api/docs');

/**
 * Security headers on every answer; `Cache-Control: no-store` on everything but the docs: answers
 * carry personal data (contacts, emails) and errors echo input, so no cache may keep them.
 */
export function securityHeadersMiddleware(req: Request, res: Response, next: NextFunction): void {
  if (isDocs(req.path)) return docsHeaders(req, res, next);
  res.setHeader('Cache-Control', 'no-store');
  applyApiHeaders(req, res, next);
}
