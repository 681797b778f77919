import { context as activeContext, createContextKey, trace, type SpanContext } from '@opentelemetry/api';
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

/**
 * Anything shaped like an email (raw or with a percent-encoded `@`), an API key, or a webhook
 * signing secret (`whsec_` and base64, raw or percent-encoded, as webhooks/webhook-signing.ts makes them).
 */
const EMAIL_LIKE = /[^\s"'<>()[\]\\/@,;:]+(?:@|%40)[A-Za-z0-9.-]+/gi;
const KEY_LIKE = new RegExp(`${API_KEY_PREFIX}[A-Za-z0-9_-]+`, 'gi');
const WEBHOOK_SECRET_LIKE = /whsec_[A-Za-z0-9+/=%]+/gi;

/**
 * Last line of defence, applied to every serialized log line and to every text of an exported
 * span: free text (an error's message or a database error's detail, e.g. "Key (organization_id,
 * email)=(..., ada@example.com)") can carry an email, a key or a secret that no serializer knows about.
 */
export function maskSecrets(line: string): string {
  return line.replace(KEY_LIKE, '[key]').replace(WEBHOOK_SECRET_LIKE, '[secret]').replace(EMAIL_LIKE, '[email]');
}

/** Routes polled by probes and scrapers: their successful answers are logged at debug level. */
const PROBE_PATHS = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * One line per answer (docs/reliability.md, logs): 5xx at error, except 503 (the service cannot
 * serve for a known reason, nothing written) at warn; a probe's success at debug; the rest at info.
 */
export function requestLogLevel(req: { url?: string }, res: { statusCode: number }, err?: Error): 'debug' | 'info' | 'warn' | 'error' {
  if (res.statusCode === 503) return 'warn';
  if (err || res.statusCode >= 500) return 'error';
  if (res.statusCode < 400 && PROBE_PATHS.has((req.url ?? '').split('?')[0])) return 'debug';
  return 'info';
}

/** Nest's start-up chatter (modules loaded, routes mapped): debug, so the demo banner ends the start. */
const STARTUP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/**
 * Structured JSON logs (pino) with the request id on every line. Keys and bodies are never
 * logged: the request serializer keeps method, a path with emails masked, and the request id.
 * Every answer has exactly one line with its status (the answers written for requests Node's
 * parser refused get theirs in http-body/client-error.ts).
 */
export function loggerParams(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.LOG_LEVEL,
      mixin: traceFields,
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
      customLogLevel: requestLogLevel,
      // The answer's line never carries a stack: pino-http would invent an Error ("failed with
      // status code 503") with its own stack for every 5xx. A 503 says why instead (database,
      // lock_timeout, shutting_down); the cause of a database fault has its own, rate-limited
      // line (database/fault-log.ts), and an unexpected 500 is logged with its error by the filter.
      customErrorObject: (_req, res, _error, value: Record<string, unknown>) => {
        const { err: _synthetic, ...line } = value;
        const reason = (res as { locals?: { unavailableReason?: string } }).locals?.unavailableReason;
        return reason ? { ...line, unavailable: reason } : line;
      },
      customErrorMessage: (_req, res) => (res.writableEnded ? 'request completed' : 'request aborted'),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          path: loggablePath(req.url),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    },
  };
}

/** An unsampled request's HTTP span context, kept for its log lines once the span itself is out of the active context (src/tracing/unsampled-requests.ts). */
export const UNSAMPLED_REQUEST_SPAN = createContextKey('contact-sync unsampled request span');

/**
 * With tracing on, a line written inside a traced request carries its trace_id, span_id (the span
 * active where the line was written: the HTTP server span for the request's completion line and
 * every line of an unsampled request) and trace_flags (`01` sampled, `00` not), read from
 * OpenTelemetry's active context. Without an active span (tracing off, probes, work outside
 * requests) nothing is added. A new object each time: pino merges the line's own fields into it.
 */
export function traceFields(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext() ?? (activeContext.active().getValue(UNSAMPLED_REQUEST_SPAN) as SpanContext | undefined);
  if (context === undefined || !trace.isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId, trace_flags: context.traceFlags.toString(16).padStart(2, '0') };
}
