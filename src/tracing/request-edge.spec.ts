import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  ParentBasedSampler,
  SamplingDecision,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-node';
import { httpServerSpanAttributes } from '../../test/utils/span-collector';
import { EdgeIdGenerator, requestLogFields, traceRequests } from './request-edge';

/**
 * The edge's decision (request-edge.ts) on a plain http server, with the SDK as start-tracing.ts
 * sets it up and a sampler that keeps half of the new traces. What each request's listener saw
 * (its log fields, the active span right away, after an await and after the body, read into a
 * promise as the service's body reader does; and whether the request and response kept their
 * shape) is recorded beside the spans exported.
 */
describe('request edge: sampling decided before any listener', () => {
  const exporter = new InMemorySpanExporter();
  const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.5) });
  const ids = new EdgeIdGenerator();
  const resource = resourceFromAttributes({ 'service.name': 'edge-test' });
  const provider = new NodeTracerProvider({ sampler, idGenerator: ids, resource, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  type Seen = { fields: Record<string, string>; activeSpan?: string; afterAwait?: string; afterBody?: string; ownProperties?: string[] };
  const seen = new Map<string, Seen>();
  const activeSpanId = () => trace.getSpan(context.active())?.spanContext().spanId;
  const server = http.createServer((req, res) => {
    const id = String(req.headers['x-test-id']);
    const record: Seen = { fields: requestLogFields(req), activeSpan: activeSpanId() };
    seen.set(id, record);
    // Emitter methods installed on the objects themselves (what binding them to a context does).
    const own = (emitter: object) => ['on', 'addListener', 'once', 'removeListener', 'off', 'removeAllListeners'].filter((name) => Object.hasOwn(emitter, name));
    record.ownProperties = [...own(req), ...own(res)];
    // As http-body/json-body.guard.ts does: the body read into a promise, awaited.
    const body = new Promise((resolve) => req.on('end', resolve));
    void body.then(() => {
      record.afterBody = activeSpanId();
      void Promise.resolve().then(() => {
        record.afterAwait = activeSpanId();
        // Express would have set the matched route by now; /fail answers 500.
        if (req.url === '/fail') res.statusCode = 500;
        else (req as { route?: unknown }).route = { path: '/things/:id' };
        res.end('ok');
      });
    });
    req.resume();
  });
  let base = '';
  let counter = 0;

  beforeAll(async () => {
    provider.register({ propagator: new W3CTraceContextPropagator() });
    traceRequests(server, {
      sampler,
      ids,
      processors: [new SimpleSpanProcessor(exporter)],
      resource,
      limits: { attributeCountLimit: 128, attributeValueLengthLimit: Infinity, eventCountLimit: 128, attributePerEventCountLimit: 128 },
      scope: { name: 'contact-sync/http-server', version: '9.9.9' },
      ignoredPaths: new Set(['/health/live']),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  async function send(path: string, headers: Record<string, string> = {}): Promise<{ seen: Seen; status: number }> {
    const id = String(++counter);
    const response = await fetch(base + path, { method: 'POST', body: 'x', headers: { ...headers, 'x-test-id': id } });
    await response.text();
    // The span ends on the response's 'close', just after the client has the answer.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { seen: seen.get(id)!, status: response.status };
  }
  const spansOf = (traceId: string) => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const ratioSamples = (traceId: string) =>
    new TraceIdRatioBasedSampler(0.5).shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;

  it('new traces: the sampler decides on the trace id the span then carries; the left-out requests enter no context and get log fields only', async () => {
    const results = [];
    for (let i = 0; i < 40; i++) results.push((await send('/things/1')).seen);
    const sampled = results.filter((r) => r.fields.trace_flags === '01');
    const left = results.filter((r) => r.fields.trace_flags === '00');
    // 40 requests at 50%: both kinds are there (all on one side: 2 in 10^12).
    expect(sampled.length).toBeGreaterThan(0);
    expect(left.length).toBeGreaterThan(0);
    for (const r of sampled) {
      expect(ratioSamples(r.fields.trace_id)).toBe(true);
      const spans = spansOf(r.fields.trace_id);
      expect(spans).toHaveLength(1);
      const [span] = spans;
      expect(span.spanContext().spanId).toBe(r.fields.span_id);
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.name).toBe('POST /things/:id');
      expect(span.attributes).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/things/1', 'http.route': '/things/:id', 'http.response.status_code': 200 });
      // The request's context, also after an await and after the body (its events come from the socket).
      expect(r).toMatchObject({ activeSpan: r.fields.span_id, afterAwait: r.fields.span_id, afterBody: r.fields.span_id });
      // The request and the response keep the shape every other request has: binding them to the
      // context would give them own emitter methods, and V8 would deoptimise every stream and
      // emitter function they pass through (docs/performance.md, "What a sampled request left behind").
      expect(r.ownProperties).toEqual([]);
    }
    for (const r of left) {
      expect(ratioSamples(r.fields.trace_id)).toBe(false);
      expect(r.fields).toEqual({ trace_id: expect.stringMatching(/^[0-9a-f]{32}$/), span_id: expect.stringMatching(/^[0-9a-f]{16}$/), trace_flags: '00' });
      expect(spansOf(r.fields.trace_id)).toEqual([]);
      expect(r).toMatchObject({ activeSpan: undefined, afterAwait: undefined, afterBody: undefined, ownProperties: [] });
    }
  });

  it("an incoming traceparent: its trace id and, with a parent-based sampler, the caller's decision", async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const followed = await send('/things/2', { traceparent: `00-${traceId}-${parentId}-01` });
    expect(followed.seen.fields).toMatchObject({ trace_id: traceId, trace_flags: '01' });
    const [span] = spansOf(traceId);
    expect(span.parentSpanContext?.spanId).toBe(parentId);

    const unsampled = randomBytes(16).toString('hex');
    const notFollowed = await send('/things/3', { traceparent: `00-${unsampled}-${parentId}-00` });
    expect(notFollowed.seen.fields).toMatchObject({ trace_id: unsampled, trace_flags: '00' });
    expect(notFollowed.seen.activeSpan).toBeUndefined();
    expect(spansOf(unsampled)).toEqual([]);
  });

  it('the exported server span is the one the SDK made: ids, flags and trace state from the traceparent, resource, scope, attributes, no events or links', async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const { seen } = await send('/things/4', { traceparent: `00-${traceId}-${parentId}-01`, tracestate: 'vendor=abc,other=1' });
    const [span] = spansOf(traceId);
    const port = Number(new URL(base).port);
    expect(span.spanContext()).toMatchObject({ traceId, spanId: seen.fields.span_id, traceFlags: 1 });
    expect(span.spanContext().traceState?.serialize()).toBe('vendor=abc,other=1');
    expect(span.parentSpanContext).toMatchObject({ traceId, spanId: parentId, traceFlags: 1, isRemote: true });
    expect(span.resource.attributes).toEqual({ 'service.name': 'edge-test' });
    expect(span.instrumentationScope).toEqual({ name: 'contact-sync/http-server', version: '9.9.9' });
    expect({ name: span.name, kind: span.kind, status: span.status, ended: span.ended }).toEqual({ name: 'POST /things/:id', kind: SpanKind.SERVER, status: { code: SpanStatusCode.UNSET }, ended: true });
    expect(span.attributes).toEqual(httpServerSpanAttributes({ method: 'POST', path: '/things/4', route: '/things/:id', status: 200, port }));
    expect({ events: span.events, links: span.links, dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount] }).toEqual({ events: [], links: [], dropped: [0, 0, 0] });
    const startMs = span.startTime[0] * 1000 + span.startTime[1] / 1e6;
    expect(Math.abs(startMs - Date.now())).toBeLessThan(5_000);
    expect(span.duration[0] * 1000 + span.duration[1] / 1e6).toBeGreaterThan(0);
  });

  it('a 5xx marks the span as an error; an ignored path gets neither a span nor log fields', async () => {
    const traceId = randomBytes(16).toString('hex');
    const failed = await send('/fail', { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` });
    expect(failed.status).toBe(500);
    const [span] = spansOf(traceId);
    expect(span.name).toBe('POST');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });

    const before = exporter.getFinishedSpans().length;
    const probe = await send('/health/live', { traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01` });
    expect(probe.seen.fields).toEqual({});
    expect(probe.seen.activeSpan).toBeUndefined();
    expect(exporter.getFinishedSpans()).toHaveLength(before);
  });
});
