import type { Server } from 'node:http';
import { context, trace, type Attributes, type SpanContext } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  type SpanLimits,
  type TimedEvent,
} from '@opentelemetry/sdk-trace-node';
import { loggablePath, maskSecrets } from '../logging/logging';
import { boundedMemo } from '../common/bounded-memo';
import { EdgeIdGenerator, requestLogFields, traceRequests } from './request-edge';
import type { SamplerName, TracingSettings } from './tracing-settings';
import { OwnSpan } from './own-span';
import { traceRoutes } from './route-spans';
import { traceStatements } from './statement-spans';
import { SharedStorageContextManager } from './shared-context';
import { setActiveTracing } from './tracing-state';

/**
 * The OpenTelemetry SDK, loaded only when tracing is on (src/tracing/register.ts requires this
 * module before anything it instruments). Spans: the HTTP server span (named by its route;
 * started at the edge, request-edge.ts, only for sampled requests), the Nest route
 * (Controller.handler; a span of our own, route-spans.ts), every PostgreSQL statement (pg, so the
 * request path's SQL and Prisma's alike; the first of each pool checkout with its wait; spans of
 * our own, statement-spans.ts) and
 * every Redis command (ioredis), the last three only inside a sampled trace. The sampler comes from OTEL_TRACES_SAMPLER/_ARG (tracing-settings.ts);
 * batch sizes, endpoints, headers and resource attributes from the other OTEL_* variables, read by
 * the SDK itself.
 */
export function startTracing(settings: Extract<TracingSettings, { enabled: true }>): void {
  const version = serviceVersion();
  const resource = resourceFromAttributes({ 'service.name': 'contact-sync', 'service.version': version })
    .merge(detectResources({ detectors: [processDetector, hostDetector] }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over our defaults.
    .merge(detectResources({ detectors: [envDetector] }));

  const spanProcessors = settings.exporters.map((name) => {
    const exporter: SpanExporter =
      name === 'console' ? new ConsoleSpanExporter() : settings.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
    // Batching keeps export off the request path; its sizes and delay follow OTEL_BSP_*.
    return new BatchSpanProcessor(new PrivacyExporter(exporter));
  });
  // One sampler for the edge's decision and the provider's (children follow their parent).
  const sampler = samplerOf(settings.sampler);
  const ids = new EdgeIdGenerator();
  const provider = new NodeTracerProvider({ resource, spanProcessors, sampler, idGenerator: ids });
  const propagators = settings.propagators.map((name) => (name === 'baggage' ? new W3CBaggagePropagator() : new W3CTraceContextPropagator()));
  // The context in nestjs-pino's storage, not a second one (shared-context.ts).
  provider.register({ propagator: new CompositePropagator({ propagators }), contextManager: new SharedStorageContextManager() });
  // The HTTP span is ours (request-edge.ts) but made as the SDK's tracer would: its span limits
  // (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, ...) as the provider resolved them.
  const limits = (provider.getTracer(HTTP_SCOPE, version) as unknown as { _spanLimits?: SpanLimits })._spanLimits;
  if (limits === undefined) throw new Error('@opentelemetry/sdk-trace-node: a tracer without _spanLimits: check its version');

  // No HTTP instrumentation: the server span is started at the edge (request-edge.ts), and the
  // service calls nothing over HTTP that a trace should follow (webhook deliveries are not traced,
  // and no traceparent is sent out).
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // The command name only: rate-limit keys hold client addresses.
      sampledOnly(new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }), '_patchSendCommand'),
    ],
  });

  // The Nest route and PostgreSQL statements: spans of our own (route-spans.ts, statement-spans.ts),
  // only inside a sampled trace; statement text only (parameters are never recorded).
  const ownSpans = { processors: spanProcessors, newSpanId: () => ids.generateSpanId(), version };
  traceRoutes(ownSpans);
  traceStatements(ownSpans);

  setActiveTracing({
    traceRequests: (server: Server) =>
      traceRequests(server, {
        sampler,
        ids,
        processors: spanProcessors,
        resource,
        limits,
        scope: { name: HTTP_SCOPE, version },
        ignoredPaths: IGNORED_PATHS,
      }),
    logFields: requestLogFields,
    shutdown: () => provider.shutdown(),
  });
}

/** The instrumentation scope of the HTTP server spans. */
export const HTTP_SCOPE = 'contact-sync/http-server';

/** Probes and scrapes would be most of the spans and tell nothing about requests. */
const IGNORED_PATHS = new Set(['/health/live', '/health/ready', '/metrics']);

/** As the SDK builds it from OTEL_TRACES_SAMPLER/_ARG (the spec's meanings). */
function samplerOf({ name, ratio }: { name: SamplerName; ratio: number }): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/**
 * Redis command spans only inside a sampled trace (PostgreSQL statements: statement-spans.ts,
 * likewise). The instrumentation skips its work
 * when there is no parent span (`requireParentSpan`), but under a non-recording parent each
 * statement would still pay for its attributes, its no-op span and its duration metric, to
 * export nothing: with instrumentation-http, every request the sampler left out had one, and at
 * 10% sampling that was most of tracing's cost on a single-contact request (docs/performance.md,
 * "Tracing overhead"). Since the edge (request-edge.ts) gives such requests no span at all, this
 * is now a second guard (work started inside a sampled request and running on after it). This
 * wraps the instrumentation's own patch (its method that wraps `Redis.prototype.sendCommand`) so
 * that an unsampled call goes straight to the original. The method is internal to the package:
 * the versions are pinned to one line (README), and test/ops/tracing.e2e-spec.ts fails if Redis
 * commands stop appearing in traces (with REDIS_URL set).
 */
function sampledOnly<T extends object>(instrumentation: T, ...patchFactories: string[]): T {
  const target = instrumentation as unknown as Record<string, (...args: unknown[]) => (original: AnyFunction) => AnyFunction>;
  for (const patchFactory of patchFactories) {
    const makePatch = target[patchFactory];
    if (typeof makePatch !== 'function') throw new Error(`${instrumentation.constructor.name} has no ${patchFactory}: check its version`);
    target[patchFactory] = function (this: unknown, ...factoryArgs: unknown[]) {
      const patch = makePatch.apply(this, factoryArgs);
      return (original: AnyFunction) => {
        const patched = patch(original);
        return function (this: unknown, ...args: unknown[]) {
          const recording = trace.getSpan(context.active())?.isRecording() === true;
          return (recording ? patched : original).apply(this, args);
        };
      };
    };
  }
  return instrumentation;
}

type AnyFunction = (...args: unknown[]) => unknown;

function serviceVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('../../package.json') as { version: string }).version;
}

/** Attributes that carry the request's URL: masked exactly like the logged path. */
const URL_ATTRIBUTES = new Set(['url.full', 'url.path', 'http.target', 'http.url']);

/**
 * The same promise as the logs (README, "no email or key in a log line"): before a span leaves
 * the process, URLs are masked like logged paths, the query is replaced, and any other text
 * (an exception's message, a statement) goes through the logs' last-resort mask. Runs on the
 * exporter's batch, off the request path, and only for sampled spans.
 */
class PrivacyExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map(maskSpan), done);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function maskSpan(span: ReadableSpan): ReadableSpan {
  if (!(span instanceof OwnSpan)) return new MaskedSpan(span);
  // The HTTP span (request-edge.ts): masked once, in place, as MaskedSpan masks a copy.
  if (!span.masked) {
    span.attributes = maskAttributes(span.attributes);
    span.events = maskEvents(span.events);
    span.masked = true;
  }
  return span;
}

function maskEvents(events: TimedEvent[]): TimedEvent[] {
  return events.length === 0 ? events : events.map((event) => (event.attributes ? { ...event, attributes: maskAttributes(event.attributes) } : event));
}

/**
 * A span as it leaves the process: the SDK's span with its attributes and events masked. A copy
 * of one class, not `Object.create(span)` with the masked fields on top: that made every ended
 * span a prototype (V8 reshapes an object when it becomes one) and gave each masked span a hidden
 * class of its own, so every property read of the exporter's serializer went megamorphic.
 */
class MaskedSpan implements ReadableSpan {
  readonly name: string;
  readonly kind: ReadableSpan['kind'];
  readonly parentSpanContext: ReadableSpan['parentSpanContext'];
  readonly startTime: ReadableSpan['startTime'];
  readonly endTime: ReadableSpan['endTime'];
  readonly status: ReadableSpan['status'];
  readonly attributes: Attributes;
  readonly links: ReadableSpan['links'];
  readonly events: TimedEvent[];
  readonly duration: ReadableSpan['duration'];
  readonly ended: boolean;
  readonly resource: ReadableSpan['resource'];
  readonly instrumentationScope: ReadableSpan['instrumentationScope'];
  readonly droppedAttributesCount: number;
  readonly droppedEventsCount: number;
  readonly droppedLinksCount: number;
  private readonly context: SpanContext;

  constructor(span: ReadableSpan) {
    this.name = span.name;
    this.kind = span.kind;
    this.parentSpanContext = span.parentSpanContext;
    this.startTime = span.startTime;
    this.endTime = span.endTime;
    this.status = span.status;
    this.attributes = maskAttributes(span.attributes);
    this.links = span.links;
    this.events = maskEvents(span.events);
    this.duration = span.duration;
    this.ended = span.ended;
    this.resource = span.resource;
    this.instrumentationScope = span.instrumentationScope;
    this.droppedAttributesCount = span.droppedAttributesCount;
    this.droppedEventsCount = span.droppedEventsCount;
    this.droppedLinksCount = span.droppedLinksCount;
    this.context = span.spanContext();
  }

  spanContext(): SpanContext {
    return this.context;
  }
}

function maskAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value !== 'string') out[name] = value;
    else if (name === 'url.query') out[name] = '[query]';
    else if (URL_ATTRIBUTES.has(name)) out[name] = maskUrl(value);
    else if (name === 'db.query.text') out[name] = maskedStatement(value);
    else out[name] = maskSecrets(value);
  }
  return out;
}

/**
 * Statement texts are few and repeat in every trace (parameters are never in them): each is
 * masked once, not once per span. Bounded: a flood of distinct texts only empties it.
 */
const maskedStatement = boundedMemo(1000, maskSecrets);

function maskUrl(value: string): string {
  const origin = /^[a-z]+:\/\/[^/]+/i.exec(value)?.[0] ?? '';
  return origin + loggablePath(value.slice(origin.length) || '/');
}
