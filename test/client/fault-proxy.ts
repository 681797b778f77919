import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with one request. */
export type Fault =
  | 'pass'
  /** 503 from the proxy itself; the service never sees the request. */
  | 'fail-503'
  /** Forwarded; once the service has answered, the client's connection is destroyed unanswered. */
  | 'drop-response'
  /** 404 REQUEST_NOT_FOUND forged by the proxy (a lookup that ran before the commit it asks about). */
  | 'fake-not-found';

export interface ProxiedRequest {
  method: string;
  path: string;
  clientRequestId?: string;
  /** What happened: the service's status, or the fault. */
  outcome: number | 'fail-503' | 'dropped' | 'fake-not-found';
  /** When the proxy received it (Date.now()). */
  at: number;
  /** The answer's Retry-After, if any. */
  retryAfter?: string;
}

/**
 * A small fault-injecting HTTP proxy in front of the real service, owned by a test. `decide` is
 * asked for every request, in arrival order; `log` records what happened to each.
 */
export class FaultProxy {
  readonly log: ProxiedRequest[] = [];
  private readonly server: Server;

  constructor(
    private readonly targetPort: number,
    public decide: (req: { method: string; path: string; clientRequestId?: string }) => Fault = () => 'pass',
  ) {
    this.server = createServer((req, res) => {
      const entry: ProxiedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        clientRequestId: header(req, 'x-client-request-id'),
        outcome: 'fail-503',
        at: Date.now(),
      };
      this.log.push(entry);
      const fault = this.decide(entry);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (fault === 'fail-503') {
          res.writeHead(503, { 'Content-Type': 'text/plain' }).end('Service Unavailable');
          return;
        }
        if (fault === 'fake-not-found') {
          entry.outcome = 'fake-not-found';
          const body = JSON.stringify({ request_id: '00000000-0000-4000-8000-000000000000', error: { code: 'REQUEST_NOT_FOUND', message: 'forged' } });
          res.writeHead(404, { 'Content-Type': 'application/json' }).end(body);
          return;
        }
        const upstream = httpRequest(
          { host: '127.0.0.1', port: this.targetPort, method: req.method, path: req.url, headers: req.headers },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => parts.push(chunk));
            answer.on('end', () => {
              if (fault === 'drop-response') {
                entry.outcome = 'dropped';
                req.socket.destroy(); // processed by the service, never answered to the client
                return;
              }
              entry.outcome = answer.statusCode ?? 0;
              entry.retryAfter = answer.headers['retry-after'];
              const headers = { ...answer.headers };
              delete headers['transfer-encoding'];
              delete headers.connection;
              res.writeHead(answer.statusCode ?? 502, headers).end(Buffer.concat(parts));
            });
          },
        );
        upstream.on('error', () => res.destroy());
        upstream.end(Buffer.concat(chunks));
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests of one method whose path starts with `prefix`. */
  requests(method: string, prefix: string): ProxiedRequest[] {
    return this.log.filter((r) => r.method === method && r.path.startsWith(prefix));
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
