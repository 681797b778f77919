import { Logger } from '@nestjs/common';
import type { Request } from 'express';
import { requestIdOf } from '../common/request-id';
import { requestLogLevel } from './logging';

const logger = new Logger('HTTP');

/**
 * The one log line of an answer written before the request logger (pino-http, Nest's middleware,
 * which runs after every `app.use` middleware and plain Express route) saw the request: shaped like
 * its lines (request id, method, masked path by the `req` serializer, status; trace fields from the
 * logger's mixin), at the same level (requestLogLevel). Used for the per-IP limit's 429 and the API docs' routes.
 */
export function logAnswerBeforeRequestLogger(req: Request, statusCode: number, message: string, extra: Record<string, unknown> = {}): void {
  const line = {
    req: { id: requestIdOf(req), method: req.method, url: req.originalUrl },
    res: { statusCode },
    ...extra,
  };
  const level = requestLogLevel(req, { statusCode });
  if (level === 'error') logger.error(line, message);
  else if (level === 'warn') logger.warn(line, message);
  else if (level === 'debug') logger.debug(line, message);
  else logger.log(line, message);
}

/** Whether pino-http handled this request (it gives each request its child logger, `req.log`). */
export const seenByRequestLogger = (req: Request): boolean => (req as Request & { log?: unknown }).log !== undefined;
