import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../config/app-config';

/** Emails travel in the path of GET /contacts/{email}; they never reach logs at info level. */
const EMAIL_IN_PATH = /(\/contacts\/)(?!batch(?:\/|$))[^/]+/;

/**
 * The path as logged: no query string (a caller may wrongly send a key or an email there; keys
 * must never reach the logs) and the email of GET /contacts/{email} masked.
 */
export function loggablePath(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  return path.replace(EMAIL_IN_PATH, '$1[email]') + (queryAt === -1 ? '' : '?[query]');
}

/**
 * Structured JSON logs (pino) with the request id on every line. Keys and bodies are never
 * logged: the request serializer keeps method, a path with emails masked, and the request id.
 */
export function loggerParams(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.LOG_LEVEL,
      genReqId: (req) => (req as { id?: string }).id ?? '',
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          path: loggablePath(req.url),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req) => req.url === '/health/live' || req.url === '/metrics' },
    },
  };
}
