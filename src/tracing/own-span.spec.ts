import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, type Attributes, type Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanLimits } from '@opentelemetry/sdk-trace-node';
import { OwnSpan } from './own-span';

/**
 * The HTTP server span is an OwnSpan with the provider's span limits (request-edge.ts): the same
 * calls on it and on the SDK's own span, under the same limits, must leave the same span behind
 * (attributes kept, cut and dropped, events, status, name), or the export would change.
 */
describe('OwnSpan with span limits behaves as the SDK span', () => {
  const resource = resourceFromAttributes({ 'service.name': 'own-span-test' });

  function both(limits: SpanLimits, initial: Attributes, act: (span: Span) => void): [ReadableSpan, OwnSpan] {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ resource, spanLimits: limits, spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const sdk = provider.getTracer('t').startSpan('GET', { kind: SpanKind.SERVER, attributes: initial }, ROOT_CONTEXT);
    act(sdk);
    sdk.end();
    const own = new OwnSpan('GET', SpanKind.SERVER, { traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: TraceFlags.SAMPLED }, undefined, resource, {}, { name: 't' }, limits);
    own.setAttributes(initial);
    act(own);
    own.finish([]);
    const [exported] = exporter.getFinishedSpans();
    return [exported, own];
  }

  const shape = (span: ReadableSpan) => ({
    name: span.name,
    kind: span.kind,
    attributes: span.attributes,
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events.map((e) => ({ name: e.name, attributes: e.attributes, droppedAttributesCount: e.droppedAttributesCount })),
    droppedEventsCount: span.droppedEventsCount,
    status: span.status,
    links: span.links,
    resource: span.resource.attributes,
  });

  const initial: Attributes = {
    'http.request.method': 'POST',
    'url.path': '/api/v2/contacts/someone@example.com',
    'network.peer.address': undefined,
    'network.peer.port': 51234,
    'user_agent.original': 'a-rather-long-user-agent/1.0',
    'server.address': 'localhost',
  };
  // One error each for both spans (their stacks are in the events).
  const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  const second = new TypeError('second');
  const later = (span: Span) => {
    span.setAttribute('http.response.status_code', 500);
    span.setAttribute('http.route', '/api/v2/contacts/:email');
    span.updateName('POST /api/v2/contacts/:email');
    span.setAttribute('client.address', '127.0.0.1');
    span.setAttribute('error.type', 'Error');
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'socket hang up' });
    span.setStatus({ code: SpanStatusCode.UNSET });
    span.recordException(reset);
    span.recordException(second);
  };

  it('default limits: every attribute kept as set, two exception events, the error status', () => {
    const [sdk, own] = both({ attributeCountLimit: 128, attributeValueLengthLimit: Infinity, eventCountLimit: 128, attributePerEventCountLimit: 128 }, initial, later);
    expect(shape(own)).toEqual(shape(sdk));
    expect(own.events).toHaveLength(2);
    expect(own.attributes['user_agent.original']).toBe('a-rather-long-user-agent/1.0');
  });

  it('tight limits: attributes past the count dropped and counted, values cut, events shifted out and their attributes bounded', () => {
    const [sdk, own] = both({ attributeCountLimit: 4, attributeValueLengthLimit: 7, eventCountLimit: 1, attributePerEventCountLimit: 2 }, initial, later);
    expect(shape(own)).toEqual(shape(sdk));
    expect(own.droppedAttributesCount).toBeGreaterThan(0);
    expect(own.droppedEventsCount).toBe(1);
    expect(own.attributes['url.path']).toBe('/api/v2');
  });

  it('no events allowed: each one dropped and counted', () => {
    const [sdk, own] = both({ attributeCountLimit: 128, eventCountLimit: 0 }, initial, later);
    expect(shape(own)).toEqual(shape(sdk));
    expect(own.droppedEventsCount).toBe(2);
  });
});
