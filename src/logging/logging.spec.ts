import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, trace, TraceFlags, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Request, Response } from 'express';
import type { DestinationStream } from 'pino';
import { pinoHttp, type Options } from 'pino-http';
import type { AppConfig } from '../config/app-config';
import { unsampledRequestsUntraced } from '../tracing/unsampled-requests';
import { loggablePath, loggerParams, maskSecrets } from './logging';

describe('loggablePath', () => {
  it('masks the email of GET /contacts/{email}', () => {
    expect(loggablePath('/api/v2/contacts/ada%40example.com')).toBe('/api/v2/contacts/[email]');
  });

  it('keeps /contacts/batch and other paths as they are', () => {
    expect(loggablePath('/api/v2/contacts/batch')).toBe('/api/v2/contacts/batch');
    expect(loggablePath('/api/v2/lists')).toBe('/api/v2/lists');
  });

  it('never logs a query string: a key or an email sent there stays out of the logs', () => {
    expect(loggablePath('/api/v2/lists?api_key=csk_secret')).toBe('/api/v2/lists?[query]');
    expect(loggablePath('/api/v2/contacts/batch?dryRun=true&email=ada@example.com')).toBe('/api/v2/contacts/batch?[query]');
  });
});

describe('loggablePath whatever the route and letter case', () => {
  it.each([
    ['/API/V2/CONTACTS/a%40b.com', '/API/V2/CONTACTS/[email]'],
    ['/api/v2/contact/x@y.com', '/api/v2/contact/[email]'],
    ['/api/v2/contacts/x@y.com/extra', '/api/v2/contacts/[email]/extra'],
    ['/anything/A%40B.COM', '/anything/[email]'],
    ['/api/v2/Contacts/not-an-email', '/api/v2/Contacts/[email]'],
    ['/api/v2/lists/csk_abcdef', '/api/v2/lists/[key]'],
    ['/api/v2/lists/CSK%5Fabcdef', '/api/v2/lists/[key]'],
    ['/API/V2/CONTACTS/BATCH', '/API/V2/CONTACTS/BATCH'],
  ])('%s is logged as %s', (url, logged) => {
    expect(loggablePath(url)).toBe(logged);
  });
});

describe('maskSecrets (every log line)', () => {
  it('masks emails and keys in free text, such as a database error detail', () => {
    const line = JSON.stringify({
      err: { detail: 'Key (organization_id, email)=(0b5e, Ada.Lovelace+x@Example.COM) already exists.' },
      msg: 'key csk_AbC-123_xyz rejected for bob%40example.com',
    });
    const masked = maskSecrets(line);
    expect(masked).not.toMatch(/lovelace|example\.com|csk_abc|bob/i);
    expect(masked).toContain('[email]');
    expect(masked).toContain('[key]');
    expect(JSON.parse(masked)).toEqual({
      err: { detail: 'Key (organization_id, email)=(0b5e, [email]) already exists.' },
      msg: 'key [key] rejected for [email]',
    });
  });

  it('masks a webhook signing secret, raw or percent-encoded', () => {
    const secret = 'whsec_syDIVI8XhQ+8g0/sIr7WFywasAnFSE9jn3HH+0tYTG0=';
    expect(maskSecrets(`{"msg":"Unknown key: ${secret}"}`)).toBe('{"msg":"Unknown key: [secret]"}');
    expect(maskSecrets(`/hooks?token=${encodeURIComponent(secret)}&x=1`)).toBe('/hooks?token=[secret]&x=1');
  });

  it('leaves ordinary lines alone', () => {
    const line = '{"level":30,"req":{"id":"1","method":"GET","path":"/api/v2/lists"},"msg":"request completed"}';
    expect(maskSecrets(line)).toBe(line);
  });
});

describe('trace fields on log lines (pino mixin reading the active span)', () => {
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider());
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });

  it("names the trace and the active span (an unsampled request's HTTP span) on every line written inside it, sampled or not; nothing outside a span", async () => {
    const lines: string[] = [];
    const params = loggerParams({ LOG_LEVEL: 'info' } as AppConfig).pinoHttp as Options;
    const middleware = pinoHttp(params, { write: (line: string) => void lines.push(line) } as unknown as DestinationStream);
    const unsampled = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE };
    const spans = { '/sampled': trace.getTracer('test').startSpan('GET /sampled'), '/unsampled': trace.wrapSpanContext(unsampled) };
    const activeSpans: Record<string, Span | undefined> = {};
    const server = createServer((req, res) => {
      const span = spans[req.url as keyof typeof spans];
      // As the HTTP instrumentation runs each request: inside its span's context, the response's
      // listeners bound to it (none for /plain).
      // Then the app's first middleware, which takes an unsampled request's span out of the context.
      const handle = () => {
        context.bind(context.active(), res);
        Object.assign(req, { id: req.url });
        unsampledRequestsUntraced(req as Request, res as Response, () => {
          activeSpans[req.url!] = trace.getActiveSpan();
          middleware(req, res);
          req.log.info('inside the request');
          res.end('ok');
        });
      };
      if (span) context.with(trace.setSpan(context.active(), span), handle);
      else handle();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const path of ['/sampled', '/unsampled', '/plain']) await (await fetch(`http://127.0.0.1:${port}${path}`)).text();
      // The completion lines follow the answers.
      for (let tries = 0; lines.length < 6 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown> & { req: { id: string } });
    const of = (id: string) => parsed.filter((line) => line.req.id === id);
    expect(of('/sampled').map((line) => line.msg)).toEqual(['inside the request', 'request completed']);
    const sampled = spans['/sampled'].spanContext();
    for (const line of of('/sampled')) expect(line).toMatchObject({ trace_id: sampled.traceId, span_id: sampled.spanId, trace_flags: '01' });
    expect(of('/unsampled')).toHaveLength(2);
    for (const line of of('/unsampled')) expect(line).toMatchObject({ trace_id: unsampled.traceId, span_id: unsampled.spanId, trace_flags: '00' });
    // Past the middleware, an unsampled request has no span for instrumentations to make children of.
    expect(activeSpans).toEqual({ '/sampled': spans['/sampled'], '/unsampled': undefined, '/plain': undefined });
    expect(of('/plain')).toHaveLength(2);
    for (const line of of('/plain')) expect(line).not.toHaveProperty('trace_id');
  });
});
