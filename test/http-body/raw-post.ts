import http from 'node:http';
import type { RawResponse } from '../rate-limit/support';

/**
 * POSTs chunks over a raw connection. With `end: false` the request is never finished: an answer
 * then proves the server decided without waiting for (reading) the rest of the body.
 */
export function rawPost(
  port: number,
  path: string,
  headers: Record<string, string>,
  chunks: Buffer[],
  options: { end?: boolean; timeoutMs?: number } = {},
): Promise<RawResponse> {
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    for (const chunk of chunks) req.write(chunk);
    if (options.end !== false) req.end();
  });
}
