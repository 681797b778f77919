import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedTarget } from './webhook-address';

/** What one attempt came to: the HTTP status (null when none came) or an error, and Retry-After in ms. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  retryAfterMs: number | null;
}

export const ATTEMPT_TIMEOUT_MS = 10_000;
const USER_AGENT = 'ContactSync-Webhooks/1';

/** The keep-alive connection pools of the attempts, one per scheme. */
export interface SenderAgents {
  'http:': http.Agent;
  'https:': https.Agent;
}

/**
 * Keep-alive: a delivery stream to one receiver reuses its connections (each was opened to a
 * checked address). Redirects are never followed: node's http client does not follow them, and a
 * 3xx is an answer that is not 2xx, so the attempt failed. The worker makes agents with as many
 * sockets per receiver as it has attempts in flight (WEBHOOK_CONCURRENCY), so that no attempt waits
 * in the agent's queue: its 10 s timeout, which the lease must outlast, counts from its start.
 */
export function senderAgents(maxSockets: number): SenderAgents {
  return { 'http:': new http.Agent({ keepAlive: true, maxSockets }), 'https:': new https.Agent({ keepAlive: true, maxSockets }) };
}

const defaultAgents = senderAgents(64);

/** Connects to the checked address, whatever a second DNS answer would say (no rebinding). */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMsOf(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** One POST of `body` to the checked target; never throws. */
export function sendAttempt(
  target: CheckedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs = ATTEMPT_TIMEOUT_MS,
  agents: SenderAgents = defaultAgents,
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const { url } = target;
    const transport = url.protocol === 'https:' ? https : http;
    // Headers as a flat list: node writes them as given, without a setHeader (name and value checks,
    // a header map) per header; so the Host header is ours to send (url.host: the port when not the
    // scheme's default, an IPv6 address in brackets, as node would write it).
    const headerList = ['host', url.host];
    for (const name in headers) headerList.push(name, headers[name]);
    headerList.push('content-type', 'application/json', 'content-length', String(Buffer.byteLength(body)), 'user-agent', USER_AGENT);
    const request = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        agent: agents[url.protocol as keyof SenderAgents],
        lookup: pinnedLookup(target.address, target.family),
        headers: headerList,
      },
      (response) => {
        const status = response.statusCode ?? null;
        const retryAfterMs = status === 429 || status === 503 ? retryAfterMsOf(response.headers['retry-after']) : null;
        // The receiver's body is not needed: read it away (bounded) so the connection can be reused.
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > 64 * 1024) response.destroy();
        });
        response.on('end', () => finish({ status, error: null, retryAfterMs }));
        response.on('close', () => finish({ status, error: null, retryAfterMs }));
        response.on('error', () => finish({ status, error: null, retryAfterMs }));
      },
    );
    const timer = setTimeout(() => {
      finish({ status: null, error: `no answer within ${timeoutMs / 1000} s`, retryAfterMs: null });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish({ status: null, error: describe(error), retryAfterMs: null }));
    request.end(body);
  });
}

/** An error as a short, secret-free line for the deliveries log. */
function describe(error: NodeJS.ErrnoException): string {
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ECONNRESET') return 'connection reset';
  if (error.code === 'ETIMEDOUT') return 'connection timed out';
  if (error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT')) return `TLS: ${error.code}`;
  return error.code ? `network error ${error.code}` : 'network error';
}
