import type { Params } from 'nestjs-pino';
import { API_KEY_PREFIX } from '../auth/api-key';
import type { AppConfig } from '../config/app-config';

/** A path segment after /contacts/ (any letter case) is an email lookup, except "batch". */
const CONTACTS_PARAM = /^contacts$/i;

/**
 * The path as logged: no query string (a caller may wrongly send a key or an email there; keys
 * must never reach the logs). Whatever the route (known or not) and letter case, a segment that
 * holds an `@` (raw or percent-encoded) is masked as `[email]`, one that holds the key prefix as
 * `[key]`, and the value after `/contacts/` as `[email]`.
 */
export function loggablePath(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const segments = path.split('/');
  const masked = segments.map((segment, i) => {
    const lower = segment.toLowerCase();
    if (lower.includes('@') || lower.includes('%40')) return '[email]';
    if (lower.includes(API_KEY_PREFIX) || lower.includes(API_KEY_PREFIX.replace('_', '%5f'))) return '[key]';
    const afterContacts = i > 0 && CONTACTS_PARAM.test(segments[i - 1]);
    if (afterContacts && segment !== '' && lower !== 'batch') return '[email]';
    return segment;
  });
  return masked.join('/') + (queryAt === -1 ? '' : '?[query]');
}

/** Anything shaped like an email (raw or with a percent-encoded `@`) or an API key. */
const EMAIL_LIKE = /[^\s"'<>()[\]\\/@,;:]+(?:@|%40)[A-Za-z0-9.-]+/gi;
const KEY_LIKE = new RegExp(`${API_KEY_PREFIX}[A-Za-z0-9_-]+`, 'gi');

/**
 * Last line of defence, applied to every serialized log line: free text (an error's message or
 * a database error's detail, e.g. "Key (organization_id, email)=(..., ada@example.com)") can
 * carry an email or a key that no serializer knows about.
 */
export function maskSecrets(line: string): string {
  return line.replace(KEY_LIKE, '[key]').replace(EMAIL_LIKE, '[email]');
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
        // Last safety net: no email or key leaves the process in a log line, whatever logged it.
        streamWrite: maskSecrets,
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
