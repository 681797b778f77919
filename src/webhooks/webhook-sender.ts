import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { checkedAddress, type TargetPolicy, TargetRefused } from './webhook-address';

/** What one attempt came to: the HTTP status (null when none came) or an error, and Retry-After in ms. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  retryAfterMs: number | null;
  /** Set when the attempt was stopped before its answer (AttemptStop): its error is the stop's reason. */
  stopped?: true;
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
 * Stops the attempts it is given (the instance is shutting down): each that has no result yet ends
 * at once, its result `stopped` with the reason's message as its error, and one started after the
 * stop ends so at once. One per worker, shared by its attempts (no signal and listener per attempt).
 */
export class AttemptStop {
  private reason: Error | undefined;
  private readonly underWay = new Set<{ stop(reason: Error): void }>();

  /** Attempts given this stop that have no result yet. */
  get size(): number {
    return this.underWay.size;
  }

  stop(reason: Error): void {
    this.reason = reason;
    for (const attempt of [...this.underWay]) attempt.stop(reason);
  }

  /** An attempt starts under this stop; answers the reason when it is already stopped. */
  enter(attempt: { stop(reason: Error): void }): Error | undefined {
    if (!this.reason) this.underWay.add(attempt);
    return this.reason;
  }

  /** The attempt has its result. */
  leave(attempt: { stop(reason: Error): void }): void {
    this.underWay.delete(attempt);
  }
}

/**
 * One POST of `body` to `url` through `agent` (webhookAgent: the address rules hold there); never
 * throws. The answer is its status line and headers: once they arrive within `timeoutMs` the
 * attempt has its result, whatever the body does afterwards (a 2xx is delivered even when the body
 * trickles or never ends). The body is then read away in the background, at most MAX_BODY and
 * until `timeoutMs` from the start, and dropped with its connection beyond that.
 *
 * `stop`: stopping it ends the attempt at once (the instance is shutting down); the result is
 * `stopped` and its error is the reason's message.
 */
export function sendAttempt(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: { agent: Dispatcher; timeoutMs?: number; stop?: AttemptStop },
): Promise<AttemptResult> {
  const attempt = new Attempt(options.timeoutMs ?? ATTEMPT_TIMEOUT_MS, options.stop);
  options.agent.dispatch(
    {
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT, connection: 'keep-alive' },
      body,
      // The attempt's own timer bounds the wait for the head and the body read away.
      headersTimeout: 0,
      bodyTimeout: 0,
    },
    attempt,
  );
  return attempt.result;
}

/** The receiver's body passed MAX_BODY: its connection is dropped. */
class BodyTooLarge extends Error {}

/**
 * One attempt as undici's dispatch handler: the result when the head arrives (or the error, the
 * timeout or the stop before it, whichever comes first: the result is settled once), then the body
 * counted away. A handler rather than `request()`, which would make a body stream, an abort signal
 * and its listener per attempt: the attempt needs only the head and the count of the body's bytes.
 */
class Attempt implements Dispatcher.DispatchHandler {
  readonly result: Promise<AttemptResult>;
  private resolve!: (result: AttemptResult) => void;
  private settled = false;
  private controller: Dispatcher.DispatchController | null = null;
  /** Why the attempt is to end before undici has started it (onRequestStart aborts it then). */
  private endedEarly: Error | null = null;
  private bodyBytes = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly timeoutMs: number,
    private readonly stopper: AttemptStop | undefined,
  ) {
    this.result = new Promise((resolve) => (this.resolve = resolve));
    this.timer = setTimeout(() => this.end(new AttemptTimeout()), timeoutMs);
    const stopped = stopper?.enter(this);
    if (stopped) this.stop(stopped);
  }

  /** The instance is shutting down: the result names `reason`, and the request ends. */
  stop(reason: Error): void {
    clearTimeout(this.timer);
    this.settle({ status: null, error: reason.message, retryAfterMs: null, stopped: true });
    this.end(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.endedEarly) controller.abort(this.endedEarly);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: the answer is still to come
    this.settle({ status: statusCode, error: null, retryAfterMs: statusCode === 429 || statusCode === 503 ? retryAfterMsOf(headers['retry-after']) : null });
    if (Number(headers['content-length']) > MAX_BODY) controller.abort(new BodyTooLarge());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > MAX_BODY) controller.abort(new BodyTooLarge());
  }

  onResponseEnd(): void {
    clearTimeout(this.timer);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    clearTimeout(this.timer);
    this.settle(this.failure(error));
  }

  /** The attempt's time ran out, or it was stopped: its result if none yet, and the request (its connection, once under way) ends. */
  private end(reason: Error): void {
    this.settle(this.failure(reason));
    if (this.controller) this.controller.abort(reason);
    else this.endedEarly ??= reason;
  }

  private settle(result: AttemptResult): void {
    if (this.settled) return;
    this.settled = true;
    this.stopper?.leave(this);
    this.resolve(result);
  }

  private failure(error: Error): AttemptResult {
    if (error instanceof AttemptTimeout) return { status: null, error: `no answer within ${this.timeoutMs / 1000} s`, retryAfterMs: null };
    if (error instanceof TargetRefused) return { status: null, error: `refused: ${error.message}`, retryAfterMs: null };
    return { status: null, error: describe(error), retryAfterMs: null };
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
