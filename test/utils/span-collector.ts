import { SharedStorageContextManager } from '../../src/tracing/shared-context';
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
  provider.register({ contextManager: new SharedStorageContextManager() });
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

/**
 * Every attribute the HTTP server span has (src/tracing/request-edge.ts) for one request from Node's
 * client on 127.0.0.1: what the SDK's span had, checked on the span itself (request-edge.spec.ts)
 * and as exported (test/ops/tracing.e2e-spec.ts).
 */
export function httpServerSpanAttributes(request: { method: string; path: string; route: string; status: number; port: number }) {
  return {
    'http.request.method': request.method,
    'url.scheme': 'http',
    'url.path': request.path,
    'network.peer.address': '127.0.0.1',
    'network.peer.port': expect.any(Number),
    'network.protocol.version': '1.1',
    'user_agent.original': 'node',
    'server.address': '127.0.0.1',
    'server.port': request.port,
    'http.response.status_code': request.status,
    'http.route': request.route,
    'client.address': '127.0.0.1',
  };
}
