import type { Attributes } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation, type HttpCustomAttributeFunction } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, ParentBasedSampler } from '@opentelemetry/sdk-trace-node';
import { TraceIdRatioBasedSampler, type ReadableSpan, type Sampler, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { loggablePath, maskSecrets } from '../logging/logging';
import type { SamplerName, TracingSettings } from './tracing-settings';

/** Probes and scrapes would be most of the spans and tell nothing about requests. */
const IGNORED_PATHS = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * OpenTelemetry's SDK and standard instrumentations, loaded only when tracing is on (register.ts).
 * Spans: the HTTP server span, named by its route template, and under a sampled one PostgreSQL
 * statements and pool checkouts (pg, under Prisma's adapter too) and Redis commands; no Nest or
 * Express spans (a cost on every request, sampled or not, to time what the HTTP span times).
 * Sampler, exporters, propagators: tracing-settings.ts; the other OTEL_* variables: the SDK's.
 * `extraExporters`: a test's, behind the same privacy step as the configured ones.
 */
export function startTracing(settings: Extract<TracingSettings, { enabled: true }>, extraExporters: SpanExporter[] = []): NodeTracerProvider {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version } = require('../../package.json') as { version: string };
  const resource = resourceFromAttributes({ 'service.name': 'contact-sync', 'service.version': version })
    .merge(detectResources({ detectors: [processDetector, hostDetector] }))
    .merge(detectResources({ detectors: [envDetector] })); // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win
  const exporters = settings.exporters.map((name): SpanExporter =>
    name === 'console' ? new ConsoleSpanExporter() : settings.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter(),
  );
  const spanProcessors = [...exporters, ...extraExporters].map((exporter) => new BatchSpanProcessor(new PrivacyExporter(exporter))); // off the request path
  const provider = new NodeTracerProvider({ resource, spanProcessors, sampler: samplerOf(settings.sampler) });
  const propagators = settings.propagators.map((name) => (name === 'baggage' ? new W3CBaggagePropagator() : new W3CTraceContextPropagator()));
  provider.register({ propagator: new CompositePropagator({ propagators }) });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // No client spans: webhook deliveries are not part of a request, and no traceparent goes out to a receiver.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => IGNORED_PATHS.has((req.url ?? '').split('?')[0]), disableOutgoingRequestInstrumentation: true, applyCustomAttributesOnSpan: nameByRoute }),
      // Statement text only: parameters are never recorded.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      // The command name only: rate-limit keys hold client addresses.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  return provider;
}

/** A recorded server span is named by the template of the route Express matched (`req.route`), read as the response ends. */
const nameByRoute: HttpCustomAttributeFunction = (span, request) => {
  const route = (request as { route?: { path?: unknown } }).route?.path;
  if (typeof route === 'string' && span.isRecording()) span.updateName(`${request.method ?? 'GET'} ${route}`).setAttribute('http.route', route);
};

/** As the SDK builds it from OTEL_TRACES_SAMPLER/_ARG (the spec's meanings). */
function samplerOf({ name, ratio }: { name: SamplerName; ratio: number }): Sampler {
  const root = name.endsWith('always_off') ? new AlwaysOffSampler() : name.endsWith('traceidratio') ? new TraceIdRatioBasedSampler(ratio) : new AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/**
 * The logs' promise kept for spans: no email, API key or secret leaves the process. On a copy of
 * each span, off the request path: URL attributes masked like a logged path, the query string
 * dropped, every other text (name, statement, error message, event) through the logs' mask.
 */
export class PrivacyExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map(maskedSpan), done);
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function maskedSpan(span: ReadableSpan): ReadableSpan {
  const { kind, parentSpanContext, startTime, endTime, links, duration, ended, resource, instrumentationScope, status } = span;
  const { droppedAttributesCount, droppedEventsCount, droppedLinksCount } = span;
  const context = span.spanContext();
  return {
    kind, parentSpanContext, startTime, endTime, links, duration, ended, resource, instrumentationScope, // unchanged
    droppedAttributesCount, droppedEventsCount, droppedLinksCount, // unchanged
    spanContext: () => context,
    name: maskSecrets(span.name),
    status: status.message === undefined ? status : { ...status, message: maskSecrets(status.message) },
    attributes: maskAttributes(span.attributes),
    events: span.events.map((event) => (event.attributes ? { ...event, attributes: maskAttributes(event.attributes) } : event)),
  };
}

const URL_ATTRIBUTES = new Set(['url.full', 'url.path', 'http.target', 'http.url']);

function maskAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'url.query') out[name] = '[query]';
    else if (typeof value !== 'string') out[name] = Array.isArray(value) ? (value.map((v: unknown) => (typeof v === 'string' ? maskSecrets(v) : v)) as typeof value) : value;
    else if (!URL_ATTRIBUTES.has(name)) out[name] = maskSecrets(value);
    else out[name] = maskUrl(value);
  }
  return out;
}

function maskUrl(value: string): string {
  const origin = /^[a-z]+:\/\/[^/]+/i.exec(value)?.[0] ?? '';
  return origin + loggablePath(value.slice(origin.length) || '/');
}
