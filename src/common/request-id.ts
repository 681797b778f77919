import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

type WithId = Request & { id?: string };

/**
 * First middleware of every request: a server-generated UUID, exposed as `X-Request-Id` and used
 * as `request_id` in bodies and as `reqId` in log lines. A client-sent X-Request-Id is ignored.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const id = randomUUID();
  (req as WithId).id = id;
  res.setHeader('X-Request-Id', id);
  next();
}

export function requestIdOf(req: Request): string {
  return (req as WithId).id ?? '';
}
