import { AlwaysOnSampler, NodeTracerProvider, RandomIdGenerator, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-node';

/**
 * The SDK set up as start-tracing.ts sets it up (every span sampled), with a span processor that
 * keeps what it is handed at each span's end: for the specs of the service's own spans
 * (src/tracing/statement-spans.spec.ts, route-spans.spec.ts).
 */
export function spanCollector() {
  const ended: ReadableSpan[] = [];
  const collector: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (span) => void ended.push(span),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const provider = new NodeTracerProvider({ sampler: new AlwaysOnSampler() });
  provider.register();
  const ids = new RandomIdGenerator();
  return {
    ended,
    provider,
    ids,
    tracer: provider.getTracer('test'),
    /** The options traceStatements and traceRoutes take. */
    options: { processors: [collector], newSpanId: () => ids.generateSpanId(), version: '0.0.0' },
  };
}
