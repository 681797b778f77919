import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Controller, Get, NotFoundException, Param, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { spanCollector } from '../../test/utils/span-collector';
import { ROUTE_SCOPE, traceRoutes } from './route-spans';

/**
 * The Nest route spans of route-spans.ts on a real Nest application (Express), under spans of the
 * SDK as start-tracing.ts sets it up; a middleware plays the edge (request-edge.ts): it runs the
 * request inside a recording span, or a non-recording one, or none.
 */
const { ended, provider, ids, tracer, options } = spanCollector();
// Before Nest builds its routes (start-tracing.ts runs before the application is created).
traceRoutes(options);

/** What the handler saw as the active span, and a child started there (a statement would be one). */
let seenInHandler: { active?: string; childParent?: string } = {};

@Controller('people')
class PeopleController {
  @Get(':email')
  lookUp(@Param('email') email: string): { email: string } {
    const child = tracer.startSpan('inner');
    seenInHandler = { active: trace.getSpan(context.active())?.spanContext().spanId, childParent: (child as unknown as ReadableSpan).parentSpanContext?.spanId };
    child.end();
    if (email.startsWith('missing')) throw new NotFoundException('no such person');
    return { email };
  }
}

describe('route spans: our own Nest route span, only inside a sampled trace', () => {
  let app: INestApplication;
  let base: string;
  /** The edge's part: 'sampled' runs the request in a recording span, 'unsampled' in a non-recording one. */
  let mode: 'sampled' | 'unsampled' | 'none' = 'none';
  let requestSpan: Span | undefined;

  beforeAll(async () => {
    const { Module } = await import('@nestjs/common');
    @Module({ controllers: [PeopleController] })
    class TestModule {}
    app = await NestFactory.create(TestModule, { logger: false });
    app.use((_req: unknown, _res: unknown, next: () => void) => {
      if (mode === 'none') return next();
      requestSpan = mode === 'sampled' ? tracer.startSpan('request') : trace.wrapSpanContext({ traceId: ids.generateTraceId(), spanId: ids.generateSpanId(), traceFlags: 0 });
      return context.with(trace.setSpan(ROOT_CONTEXT, requestSpan), next);
    });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${((app.getHttpServer() as Server).address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await provider.shutdown();
  });
  beforeEach(() => {
    ended.length = 0;
    seenInHandler = {};
    requestSpan = undefined;
  });

  it('a sampled request: one finished route span under the request span, active while the handler runs, named and attributed like the Nest instrumentation, URL masked', async () => {
    mode = 'sampled';
    const response = await fetch(`${base}/people/ada%40example.com?q=ada@example.com`);
    expect(response.status).toBe(200);
    requestSpan!.end();

    const routes = ended.filter((s) => s.instrumentationScope.name === ROUTE_SCOPE);
    expect(routes).toHaveLength(1);
    const [route] = routes;
    expect(route).toMatchObject({
      name: 'PeopleController.lookUp',
      kind: SpanKind.INTERNAL,
      ended: true,
      status: { code: SpanStatusCode.UNSET },
      attributes: {
        component: '@nestjs/core',
        'nestjs.type': 'request_context',
        'nestjs.controller': 'PeopleController',
        'nestjs.callback': 'lookUp',
        'http.route': '/people/:email',
        'http.request.method': 'GET',
        'url.full': '/people/[email]?[query]',
      },
    });
    expect(route.attributes['nestjs.version']).toMatch(/^\d+\.\d+\.\d+/);
    expect(route.spanContext().traceId).toBe(requestSpan!.spanContext().traceId);
    expect(route.parentSpanContext?.spanId).toBe(requestSpan!.spanContext().spanId);
    // The handler ran inside the route span: what it starts hangs under it.
    expect(seenInHandler).toEqual({ active: route.spanContext().spanId, childParent: route.spanContext().spanId });
    expect(JSON.stringify(route.attributes)).not.toContain('ada');
  });

  it('a failed handler: the route span has the error status and an exception event, the answer is still the exception filter’s', async () => {
    mode = 'sampled';
    const response = await fetch(`${base}/people/missing`);
    expect(response.status).toBe(404);
    requestSpan!.end();
    const route = ended.find((s) => s.instrumentationScope.name === ROUTE_SCOPE)!;
    expect(route.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no such person' });
    expect(route.events).toEqual([expect.objectContaining({ name: 'exception', attributes: { 'exception.type': 'NotFoundException', 'exception.message': 'no such person' } })]);
  });

  it('an unsampled request (non-recording span) or one outside any trace: no route span, the handler runs as is', async () => {
    for (const current of ['unsampled', 'none'] as const) {
      mode = current;
      requestSpan = undefined;
      const response = await fetch(`${base}/people/grace%40example.com`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ email: 'grace@example.com' });
      expect(seenInHandler.active).toBe((requestSpan as Span | undefined)?.spanContext().spanId);
    }
    expect(ended.filter((s) => s.name !== 'inner')).toEqual([]);
  });
});
