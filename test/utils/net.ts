import http from 'node:http';
import net from 'node:net';

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Whether a new TCP connection to the port on 127.0.0.1 is accepted right now. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Everything the server sends on a socket until it closes it, or until the timeout. */
export function readAll(socket: net.Socket, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const timer = setTimeout(() => resolve(data), timeoutMs);
    socket.on('data', (c: Buffer) => (data += c.toString()));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
  });
}

/** The port the app listens on. */
export function portOf(t: { app: { getHttpServer(): unknown } }): number {
  return ((t.app.getHttpServer() as net.Server).address() as net.AddressInfo).port;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * POSTs chunks over a fresh connection, byte for byte. With `end: false` the request is never
 * finished (with no chunks, only the headers go out): an answer then proves the server decided
 * without waiting for (reading) the rest of the body.
 */
export function rawPost(
  port: number,
  path: string,
  /** An object, or raw `[name, value, name, value, ...]` to send empty or repeated headers as given. */
  headers: Record<string, string> | string[],
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
      reject(new Error(`no answer within ${timeoutMs} ms: the server waited for the body`));
    }, timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    for (const chunk of chunks) req.write(chunk);
    if (options.end !== false) req.end();
    else if (chunks.length === 0) req.flushHeaders();
  });
}

/** POSTs `bytes` exactly as given (supertest would re-encode a Buffer) to the app; a JSON answer is parsed. */
export async function rawPostJson(
  t: { app: { getHttpServer(): unknown } },
  path: string,
  bytes: Buffer,
  headers: Record<string, string>,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked by value
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  const res = await rawPost(portOf(t), path, { ...headers, 'Content-Length': String(bytes.length) }, [bytes]);
  let body: unknown = res.body;
  try {
    body = JSON.parse(res.body);
  } catch {
    /* keep the text */
  }
  return { ...res, body };
}

/** Sends the request line and headers only, never the body they announce. */
export function sendHeadersOnly(port: number, path: string, headers: Record<string, string>, timeoutMs = 3000): Promise<RawResponse> {
  return rawPost(port, path, headers, [], { end: false, timeoutMs });
}
