import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Request, Response } from 'express';
import { securityHeadersMiddleware } from './security-headers';

/** The middleware on a real Node response (not sent), with the request path Express would give. */
function run(path: string) {
  const req = new IncomingMessage(new Socket()) as Request;
  Object.defineProperty(req, 'path', { value: path });
  const res = new ServerResponse(req) as unknown as Response;
  res.setHeader('X-Powered-By', 'Express'); // what helmet removes
  let nextCalls = 0;
  securityHeadersMiddleware(req, res, () => void nextCalls++);
  return { headers: res.getHeaders(), nextCalls };
}

describe('security headers (helmet)', () => {
  it('an API answer: a CSP that loads nothing, nosniff, no-store, no X-Powered-By', () => {
    const { headers, nextCalls } = run('/api/v2/events');
    expect(nextCalls).toBe(1);
    expect(headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(headers['strict-transport-security']).toMatch(/^max-age=\d+/);
    expect(headers['x-powered-by']).toBeUndefined();
  });

  it('the docs keep their own policy (in any letter case) and no no-store', () => {
    for (const path of ['/api/docs', '/API/Docs/swagger-ui.css']) {
      const { headers, nextCalls } = run(path);
      expect(nextCalls).toBe(1);
      expect(headers['cache-control']).toBeUndefined();
      expect(String(headers['content-security-policy'])).toContain("script-src 'self'");
      expect(headers['x-content-type-options']).toBe('nosniff');
    }
  });
});
