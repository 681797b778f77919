import { CanActivate, Injectable, type ExecutionContext } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { invalidRequest } from '../errors/request-error';

type FlaggedRequest = Request & { brokenPercentEncoding?: boolean };

/** Stands in for a path segment whose percent-encoding is broken: it routes like any value. */
const PLACEHOLDER_SEGMENT = '%25';

/**
 * Express decodes route parameters while routing and fails at once on broken percent-encoding,
 * before any guard: `GET /contacts/%ZZ` would be answered 400 ahead of the API key and the
 * organization limit. This middleware (before routing) replaces such segments with a
 * placeholder and flags the request; BrokenPathEncodingGuard refuses it in its place in the
 * order of checks (after the key and the organization limit).
 */
export function brokenPathEncodingMiddleware(req: Request, _res: Response, next: NextFunction): void {
  const queryAt = req.url.indexOf('?');
  const path = queryAt === -1 ? req.url : req.url.slice(0, queryAt);
  if (!path.includes('%')) return next();
  let broken = false;
  const segments = path.split('/').map((segment) => {
    try {
      decodeURIComponent(segment);
      return segment;
    } catch {
      broken = true;
      return PLACEHOLDER_SEGMENT;
    }
  });
  if (broken) {
    (req as FlaggedRequest).brokenPercentEncoding = true;
    req.url = segments.join('/') + (queryAt === -1 ? '' : req.url.slice(queryAt));
  }
  next();
}

/** Registered after the organization limit: a flagged request is 400 INVALID_REQUEST there. */
@Injectable()
export class BrokenPathEncodingGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if ((context.switchToHttp().getRequest<FlaggedRequest>()).brokenPercentEncoding) {
      throw invalidRequest('The request path holds a broken percent-encoding');
    }
    return true;
  }
}
