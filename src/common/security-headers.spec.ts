import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { apiHeaders, apiSteps, securityHeadersMiddleware } from './security-headers';

/** A real Node response (not sent), with the request path Express would give. */
function response(path: string): { req: Request; res: Response } {
  const req = new IncomingMessage(new Socket()) as Request;
  Object.defineProperty(req, 'path', { value: path });
  const res = new ServerResponse(req) as unknown as Response;
  res.setHeader('X-Powered-By', 'Express'); // what helmet removes
  return { req, res };
}

const run = (middleware: (req: Request, res: Response, next: NextFunction) => void, path: string) => {
  const { req, res } = response(path);
  let nextCalls = 0;
  middleware(req, res, () => void nextCalls++);
  return { headers: res.getHeaders(), names: res.getHeaderNames(), nextCalls };
};

describe('security headers: helmet recorded once, replayed per answer', () => {
  it('the API headers are replayed, not computed per request', () => {
    expect(apiSteps).toBeDefined();
    expect(apiSteps!.length).toBeGreaterThan(5);
  });

  it('an API answer gets exactly what helmet itself sets, in the same order, plus no-store', () => {
    const byHelmet = run(apiHeaders, '/api/v2/events');
    const replayed = run(securityHeadersMiddleware, '/api/v2/events');
    expect(replayed.nextCalls).toBe(1);
    const { 'cache-control': cacheControl, ...rest } = replayed.headers;
    expect(cacheControl).toBe('no-store');
    expect(rest).toEqual(byHelmet.headers);
    expect(replayed.names.filter((name) => name !== 'cache-control')).toEqual(byHelmet.names);
    expect(replayed.headers['x-powered-by']).toBeUndefined();
    expect(replayed.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
  });

  it('the docs keep their own policy and no no-store', () => {
    const docs = run(securityHeadersMiddleware, '/api/docs');
    expect(docs.headers['cache-control']).toBeUndefined();
    expect(String(docs.headers['content-security-policy'])).toContain("script-src 'self'");
  });
});
