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

/** Nest's start-up chatter (modules loaded, routes mapped): debug, so the demo banner ends the start. */
const STARTUP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/**
 * Structured JSON logs (pino) with the request id on every line. Keys and bodies are never
 * logged: the request serializer keeps method, a path with emails masked, and the request id.
 */
export function loggerParams(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.LOG_LEVEL,
      hooks: {
        logMethod(args, method, level) {
          const context = (args[0] as { context?: unknown } | undefined)?.context;
          if (level === 30 && typeof context === 'string' && STARTUP_CONTEXTS.has(context)) {
            return this.debug(...(args as [object, string]));
          }
          return method.apply(this, args);
        },
      },
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
