import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import { pinoHttp, type Options } from 'pino-http';
import type { AppConfig } from '../config/app-config';
import { setActiveTracing } from '../tracing/tracing-state';
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

  it('leaves ordinary lines alone', () => {
    const line = '{"level":30,"req":{"id":"1","method":"GET","path":"/api/v2/lists"},"msg":"request completed"}';
    expect(maskSecrets(line)).toBe(line);
  });
});

describe('trace fields on the request logger (tracing on)', () => {
  it("binds trace_id, span_id and trace_flags in the request's own child logger, after req, on every line of the request", async () => {
    const fields = { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331', trace_flags: '00' };
    setActiveTracing({ traceRequests: () => undefined, logFields: (req) => (req as { traced?: boolean }).traced ? fields : {}, shutdown: () => Promise.resolve() });
    const lines: string[] = [];
    const directChild: boolean[] = [];
    const params = loggerParams({ LOG_LEVEL: 'info' } as AppConfig).pinoHttp as Options;
    const middleware = pinoHttp(params, { write: (line: string) => void lines.push(line) } as unknown as DestinationStream);
    const server = createServer((req, res) => {
      Object.assign(req, { id: 'r1', traced: req.url !== '/untraced' });
      middleware(req, res);
      req.log.info('inside the request');
      // One child of pino-http's logger per request, not a child of a child (customProps made one).
      directChild.push(Object.getPrototypeOf(req.log) === middleware.logger);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await (await fetch(`http://127.0.0.1:${port}/traced`)).text();
      await (await fetch(`http://127.0.0.1:${port}/untraced`)).text();
      // The completion lines follow the answers.
      for (let tries = 0; lines.length < 4 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(directChild).toEqual([true, true]);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.map((line) => line.msg)).toEqual(['inside the request', 'request completed', 'inside the request', 'request completed']);
    for (const line of parsed.slice(0, 2)) {
      expect(line).toMatchObject(fields);
      const keys = Object.keys(line);
      expect(keys.slice(keys.indexOf('req'), keys.indexOf('req') + 4)).toEqual(['req', 'trace_id', 'span_id', 'trace_flags']);
    }
    for (const line of parsed.slice(2)) expect(line).not.toHaveProperty('trace_id');
  });
});
