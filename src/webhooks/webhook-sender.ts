import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { checkedAddress, type TargetPolicy, TargetRefused } from './webhook-address';

/** What one attempt came to: the HTTP status (null when none came) or an error, and Retry-After in ms. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  retryAfterMs: number | null;
}

export const ATTEMPT_TIMEOUT_MS = 10_000;
const USER_AGENT = 'ContactSync-Webhooks/1';
/**
 * The receiver's body is not needed: after the head, at most this much of it is read away (within
 * the attempt's time) so that its connection can carry the next attempt; more, and the connection
 * is closed instead.
 */
const MAX_BODY = 64 * 1024;

/** The attempt's time ran out before the receiver's status line and headers arrived. */
export class AttemptTimeout extends Error {}

/**
 * The HTTP client of webhook attempts: an undici Agent whose connector enforces the address rules
 * (webhook-address.ts) on every connection it opens. It resolves the URL's host, checks every
 * address the name resolves to, and connects to the address it checked, with the URL's host as
 * the TLS name (and, from the URL, as the Host header): a name re-pointed at an internal address
 * (DNS rebinding) is refused when the next connection opens. A kept-alive connection goes on to
 * an address checked when it opened. Redirects are not followed (undici follows none unless told
 * to): a 3xx is an answer that is not 2xx.
 *
 * `policy` is read at each connection (tests swap the resolver); `ca`: the roots trusted instead
 * of node's (tests only; certificates are always verified).
 */
export function webhookAgent(policy: () => TargetPolicy, options: { ca?: string } = {}): Agent {
  const connect = buildConnector({ timeout: ATTEMPT_TIMEOUT_MS, ...(options.ca ? { ca: options.ca } : {}) });
  return new Agent({
    connect: (target, callback) => {
      checkedAddress(target.hostname, policy()).then(
        ({ address }) => connect({ ...target, hostname: address, servername: isIP(target.hostname) ? undefined : target.hostname }, callback),
        (error: Error) => callback(error, null),
      );
    },
  });
}

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMsOf(value: string | string[] | undefined, now = Date.now()): number | null {
  if (Array.isArray(value)) value = value[value.length - 1];
  if (!value) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * One POST of `body` to `url` through `agent` (webhookAgent: the address rules hold there); never
 * throws. The answer is its status line and headers: once they arrive within `timeoutMs` the
 * attempt has its result, whatever the body does afterwards (a 2xx is delivered even when the body
 * trickles or never ends). The body is then read away in the background, at most MAX_BODY and
 * until `timeoutMs` from the start, and dropped with its connection beyond that.
 *
 * `stop`: aborting it ends the attempt at once (the instance is shutting down); its reason is the
 * error the result names.
 */
export async function sendAttempt(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: { agent: Dispatcher; timeoutMs?: number; stop?: AbortController },
): Promise<AttemptResult> {
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const controller = options.stop ?? new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeout()), timeoutMs);
  try {
    const answer = await options.agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT, connection: 'keep-alive' },
      body,
      signal: controller.signal,
      // The attempt's own timer bounds the wait for the head and the body read away.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    answer.body.dump({ limit: MAX_BODY }).then(
      () => clearTimeout(timer),
      () => clearTimeout(timer),
    );
    const status = answer.statusCode;
    return { status, error: null, retryAfterMs: status === 429 || status === 503 ? retryAfterMsOf(answer.headers['retry-after']) : null };
  } catch (error) {
    clearTimeout(timer);
    if (error instanceof AttemptTimeout) return { status: null, error: `no answer within ${timeoutMs / 1000} s`, retryAfterMs: null };
    if (error instanceof TargetRefused) return { status: null, error: `refused: ${error.message}`, retryAfterMs: null };
    if (controller.signal.aborted && error === controller.signal.reason && error instanceof Error) return { status: null, error: error.message, retryAfterMs: null };
    return { status: null, error: describe(error as NodeJS.ErrnoException), retryAfterMs: null };
  }
}

/** An error as a short, secret-free line for the deliveries log. */
function describe(error: NodeJS.ErrnoException): string {
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ECONNRESET' || (error.code === 'UND_ERR_SOCKET' && error.message === 'other side closed')) return 'connection reset';
  if (error.code === 'UND_ERR_SOCKET' || error.name === 'HTTPParserError') return 'not an HTTP/1.1 answer';
  if (error.code === 'ETIMEDOUT' || error.code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
  if (error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT')) return `TLS: ${error.code}`;
  return error.code ? `network error ${error.code}` : 'network error';
}
