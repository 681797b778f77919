import { errorMonitor } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type SpanContext } from '@opentelemetry/api';
import { RandomIdGenerator, SamplingDecision, type IdGenerator, type ReadableSpan, type Sampler, type SpanLimits, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OwnSpan } from './own-span';

/**
 * The HTTP server span, decided at the edge (loaded only with tracing on, from start-tracing.ts).
 *
 * Each request's sampling decision is made before any other OpenTelemetry work: the incoming
 * context is read with the configured propagators (W3C `traceparent`/`tracestate`, `baggage`),
 * the configured sampler (OTEL_TRACES_SAMPLER/_ARG) decides on the request's trace id, and:
 *  - a request the sampler leaves out carries no OpenTelemetry work at all: no span, no
 *    attributes, no context entered (so no context propagation through its promises), no
 *    emitters bound; it only gets the log fields below (the trace id of the incoming traceparent,
 *    or a new one, a span id and `trace_flags: 00`), as a non-recording span would have given it;
 *  - a sampled request gets the server span, with the semantic conventions' HTTP attributes, and
 *    runs inside its context, so the Nest route, PostgreSQL and Redis spans hang under it. The
 *    span is an `OwnSpan` (own-span.ts), the class of the route and statement spans, made as the
 *    SDK's `startSpan` made it (ids, flags, trace state, resource, span limits) and masked by the
 *    exporter as the SDK's spans are: one span class and one set of functions on the sampled path
 *    instead of the SDK's generic span as well (docs/performance.md, "Tracing, seventh pass").
 * This replaces `@opentelemetry/instrumentation-http`, which computed the attributes, entered a
 * context and bound the request's emitters for every request, sampled or not
 * (docs/performance.md, "Tracing overhead").
 */

/** Where a request keeps its log fields (read by pino-http's customProps, src/logging/logging.ts). */
const LOG_FIELDS = Symbol('traceLogFields');

type TracedRequest = IncomingMessage & { [LOG_FIELDS]?: Record<string, string>; route?: { path?: unknown }; ip?: string };

/**
 * The provider's id generator (for the spans the SDK still makes: Redis commands), and the edge's
 * trace ids for new traces.
 */
export class EdgeIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();

  generateTraceId(): string {
    return this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }

  newTraceId(): string {
    return this.random.generateTraceId();
  }
}

export interface EdgeOptions {
  /** The provider's own sampler: the same decision for the server span as for its children. */
  sampler: Sampler;
  ids: EdgeIdGenerator;
  /** The span processors (the batch and its exporter), the provider's resource and span limits. */
  processors: readonly SpanProcessor[];
  resource: ReadableSpan['resource'];
  limits: SpanLimits;
  /** The HTTP span's instrumentation scope (HTTP_SCOPE and the service's version). */
  scope: ReadableSpan['instrumentationScope'];
  /** Paths never traced (probes, scrapes): no span, no log fields. */
  ignoredPaths: ReadonlySet<string>;
}

/** The log fields of a request (trace_id, span_id, trace_flags), or {} for an untraced path. */
export function requestLogFields(req: object): Record<string, string> {
  return (req as TracedRequest)[LOG_FIELDS] ?? {};
}

/**
 * Wraps the server's `request` event (also re-emitted by app.factory.ts for `Expect` requests):
 * the decision and, for sampled requests, the span and its context come before any listener.
 */
export function traceRequests(server: Server, options: EdgeOptions): void {
  const emit = server.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'request') return emit.apply(this, [event, ...args]);
    return onRequest(args[0] as TracedRequest, args[1] as ServerResponse, options, () => emit.apply(this, [event, ...args]));
  } as Server['emit'];
}

function onRequest(req: TracedRequest, res: ServerResponse, options: EdgeOptions, next: () => boolean): boolean {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (options.ignoredPaths.has(path)) return next();

  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const parentSpanContext = trace.getSpanContext(parent);
  const remoteParent = parentSpanContext && trace.isSpanContextValid(parentSpanContext) ? parentSpanContext : undefined;
  const traceId = remoteParent?.traceId ?? options.ids.newTraceId();
  const method = methodOf(req.method);
  // The built-in samplers (the only ones tracing-settings.ts accepts) decide on the parent and
  // the trace id alone: the same answer as the SDK's startSpan gave when it made this span.
  const sampling = options.sampler.shouldSample(parent, traceId, method.name, SpanKind.SERVER, {}, []);
  if (sampling.decision === SamplingDecision.NOT_RECORD) {
    req[LOG_FIELDS] = { trace_id: traceId, span_id: options.ids.generateSpanId(), trace_flags: '00' };
    return next();
  }

  // The span as the SDK's tracer made it (startSpan): the parent's trace state unless the sampler
  // gives one, flags from the decision, the provider's resource and span limits.
  const own: SpanContext = {
    traceId,
    spanId: options.ids.generateSpanId(),
    traceFlags: sampling.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE,
    traceState: sampling.traceState ?? remoteParent?.traceState,
  };
  const span = new OwnSpan(method.name, SpanKind.SERVER, own, remoteParent, options.resource, {}, options.scope, options.limits);
  span.setAttributes(requestAttributes(req, method, path, url, queryAt));
  if (sampling.attributes) span.setAttributes(sampling.attributes);
  const spanContext = span.spanContext();
  req[LOG_FIELDS] = {
    trace_id: spanContext.traceId,
    span_id: spanContext.spanId,
    trace_flags: (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0 ? '01' : '00',
  };
  const active = trace.setSpan(parent, span);
  return context.with(active, () => {
    // The request and the response are not bound to the context (`context.bind(active, req)`):
    // binding gives those two objects own `on`/`addListener`/... properties, a second hidden class
    // for every stream and emitter function a request passes through, which V8 then deoptimises
    // and recompiles polymorphic for all later requests, sampled or not (docs/performance.md,
    // "What a sampled request left behind"). Nothing needs it: the body is read into a promise
    // that is awaited in this context, and the span ends from the response's own events.
    let ended = false;
    const end = (error?: Error) => {
      if (ended) return;
      ended = true;
      try {
        if (error) failed(span, error);
        else responded(span, req, res, method.name);
      } catch {
        // A span's details must never break the answer (this runs in the response's listeners).
      }
      span.finish(options.processors);
    };
    res.on(errorMonitor, end);
    res.once('close', () => end());
    try {
      return next();
    } catch (error) {
      end(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  });
}

const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);

/** The semantic conventions: a known method as is, any other as `_OTHER` (the span then named `HTTP`). */
function methodOf(raw: string | undefined): { name: string; attribute: string; original?: string } {
  const method = raw ?? 'GET';
  const upper = method.toUpperCase();
  if (!KNOWN_METHODS.has(upper)) return { name: 'HTTP', attribute: '_OTHER', original: method };
  return upper === method ? { name: method, attribute: method } : { name: upper, attribute: upper, original: method };
}

/** At the start (sampled requests only). URLs are masked by the exporter (start-tracing.ts). */
function requestAttributes(req: IncomingMessage, method: ReturnType<typeof methodOf>, path: string, url: string, queryAt: number): Attributes {
  const attributes: Attributes = {
    'http.request.method': method.attribute,
    'url.scheme': 'http',
    'url.path': path,
    'network.peer.address': req.socket.remoteAddress,
    'network.peer.port': req.socket.remotePort,
    'network.protocol.version': req.httpVersion,
    'user_agent.original': req.headers['user-agent'],
  };
  if (method.original !== undefined) attributes['http.request.method_original'] = method.original;
  if (queryAt !== -1) attributes['url.query'] = url.slice(queryAt + 1);
  const host = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(req.headers.host ?? '');
  if (host?.[1]) attributes['server.address'] = host[1].replace(/^\[|\]$/g, '');
  if (host?.[2]) attributes['server.port'] = Number(host[2]);
  return attributes;
}

/**
 * When the response is done (or its connection closed): the status, the route Express matched
 * (the Nest route's path, which also names the span: "POST /api/v2/contacts", never the raw path,
 * which may hold an email; an unmatched request stays "GET"), the client address as Express
 * sees it (TRUST_PROXY decides whether X-Forwarded-For is believed), and an error status for 5xx.
 */
function responded(span: OwnSpan, req: TracedRequest, res: ServerResponse, methodName: string): void {
  const status = res.statusCode;
  span.setAttribute('http.response.status_code', status);
  const route = req.route?.path;
  if (typeof route === 'string') {
    span.setAttribute('http.route', route);
    span.updateName(`${methodName} ${route}`);
  }
  const client = req.ip ?? req.socket.remoteAddress; // Express's getter; the socket may be gone
  if (client) span.setAttribute('client.address', client);
  if (status >= 500) {
    span.setAttribute('error.type', String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
}

function failed(span: OwnSpan, error: Error): void {
  span.setAttribute('error.type', error.name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  span.recordException(error);
}
