import type { CheckedTarget } from './webhook-address';
import { AttemptTimeout, WebhookConnections } from './webhook-http';

/** What one attempt came to: the HTTP status (null when none came) or an error, and Retry-After in ms. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  retryAfterMs: number | null;
}

export const ATTEMPT_TIMEOUT_MS = 10_000;
const USER_AGENT = 'ContactSync-Webhooks/1';

/** The keep-alive connections of the attempts (webhook-http.ts). */
export type SenderAgents = WebhookConnections;

/**
 * Keep-alive: a delivery stream to one receiver reuses its connections (each was opened to a
 * checked address: the connection key is the address, not the name). The worker keeps up to as many
 * idle connections per receiver as it has attempts in flight (WEBHOOK_CONCURRENCY), so no attempt
 * waits for a connection: each opens one when none is idle, and its 10 s timeout, which the lease
 * must outlast, counts from its start.
 */
export function senderAgents(maxSockets: number): SenderAgents {
  return new WebhookConnections(maxSockets);
}

const defaultAgents = senderAgents(64);

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMsOf(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** One POST of `body` to the checked target, connected to the checked address (no second DNS answer: no rebinding); never throws. */
export function sendAttempt(
  target: CheckedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs = ATTEMPT_TIMEOUT_MS,
  agents: SenderAgents = defaultAgents,
): Promise<AttemptResult> {
  return new Promise((resolve) => postAttempt(target, headers, body, timeoutMs, agents, resolve));
}

/** `sendAttempt` with a callback (called exactly once, unless this throws: then never), for the worker: no promise per attempt. */
export function postAttempt(
  target: CheckedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  agents: SenderAgents,
  callback: (result: AttemptResult) => void,
): void {
  const { url } = target;
  // One write: the head (our own values only: the path as the URL parser encoded it, the Host of
  // the URL as node would write it, the signature headers) and the body.
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
  head += `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nuser-agent: ${USER_AGENT}\r\nconnection: keep-alive\r\n\r\n`;
  const request = Buffer.from(head + body, 'utf8');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  agents.post({ protocol: url.protocol, address: target.address, port, servername: target.servername }, request, timeoutMs, (error, answer) => {
    if (answer) {
      const { status } = answer;
      callback({ status, error: null, retryAfterMs: status === 429 || status === 503 ? retryAfterMsOf(answer.headers['retry-after']) : null });
    } else if (error instanceof AttemptTimeout) {
      callback({ status: null, error: `no answer within ${timeoutMs / 1000} s`, retryAfterMs: null });
    } else {
      callback({ status: null, error: describe(error as NodeJS.ErrnoException), retryAfterMs: null });
    }
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
