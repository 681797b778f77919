import { ContactSyncError, type ContactSyncErrorCode } from './errors';
import type { StoredResponse } from './types';

/** Retry bounds (seed interface section 8 says what is retried; these say how long). */
export interface RetryOptions {
  /** Attempts of one request counting 5xx and network failures (429 waits are bounded by time only). Default 6. */
  maxAttempts?: number;
  /** First backoff ceiling; doubles per failure, full jitter. Default 250 ms. */
  baseDelayMs?: number;
  /** Largest backoff ceiling. Default 20 s. */
  maxDelayMs?: number;
  /** Total time one request may take, waits included; no retry starts past it. Default 5 minutes. */
  maxElapsedMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  retry?: RetryOptions;
  /** Longest one HTTP attempt may take (an expired attempt is an ambiguous failure). Default 60 s. */
  requestTimeoutMs?: number;
  fetch?: typeof fetch;
  /** For tests: a source of numbers in [0, 1) for the jitter. */
  random?: () => number;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  /** The service's X-Request-Id. */
  requestId: string | null;
  /** A `stream` send's 200: the response, its body not read yet (`body` is then null). */
  response?: Response;
}

/** Counters of one client, for callers who want to see what the retries cost. */
export interface TransportStats {
  requests: number;
  rateLimited: number;
  retried: number;
  lookups: number;
}

const RETRIED_STATUSES = new Set([500, 502, 503, 504]);

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
/** Failures whose outcome is unknown: the service may have processed the request. 429 is never processed. */
const AMBIGUOUS_STATUSES = new Set([500, 502, 503, 504]);
/** Connection errors raised before anything was sent. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

type Attempt =
  | { kind: 'answer'; answer: HttpAnswer }
  | { kind: 'network'; error: unknown; sent: boolean };

/** The caller's abort reason (an AbortError DOMException unless the caller gave one). */
export function abortError(signal: AbortSignal): Error {
  return (signal.reason as Error | undefined) ?? new DOMException('The operation was aborted', 'AbortError');
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Seconds of `Retry-After` (or an HTTP date), else the `t` of the `RateLimit` header, in ms; 1 s when neither says. */
export function retryAfterMs(headers: Headers, now = Date.now()): number {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const t = /(?:^|;)\s*t=(\d+)/.exec(headers.get('ratelimit') ?? '');
  if (t) return Number(t[1]) * 1000;
  return 1000;
}

function errorCodeOf(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } })?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/** The body's `error` of a request-level error answer, if it is one. */
function requestError(body: unknown): { code: string; message: string } | null {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return error && typeof error.code === 'string' && typeof error.message === 'string'
    ? { code: error.code, message: error.message }
    : null;
}

export function errorFromAnswer(answer: HttpAnswer, attempts: number): ContactSyncError {
  const error = requestError(answer.body);
  return new ContactSyncError(
    error ? error.message : `Unexpected HTTP ${answer.status} answer`,
    answer.status,
    (error?.code ?? 'UNEXPECTED_RESPONSE') as ContactSyncErrorCode,
    answer.requestId,
    attempts,
  );
}

/** One client's HTTP: single attempts, retries by the interface's rules, and the shared 429 pause. */
export class Transport {
  readonly stats: TransportStats = { requests: 0, rateLimited: 0, retried: 0, lookups: 0 };
  private readonly baseUrl: string;
  private readonly retry: Required<RetryOptions>;
  private readonly fetchImpl: typeof fetch;
  private readonly random: () => number;
  private readonly requestTimeoutMs: number;
  /** After a 429 every request of this client waits until then: the limit is the organization's, not the request's. */
  private pausedUntil = 0;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = { maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 20_000, maxElapsedMs: 300_000, ...options.retry };
    this.fetchImpl = options.fetch ?? fetch;
    this.random = options.random ?? Math.random;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  }

  /** One HTTP exchange. A network failure is a value; the caller's abort is thrown. */
  private async attempt(
    method: HttpMethod,
    path: string,
    body: unknown,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    stream = false,
  ): Promise<Attempt> {
    const wait = this.pausedUntil - Date.now();
    if (wait > 0) await sleep(wait, signal);
    if (signal?.aborted) throw abortError(signal);
    this.stats.requests++;
    // A streamed answer's body may take longer than requestTimeoutMs: its limit ends with the headers.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new DOMException('The request timed out', 'TimeoutError')), this.requestTimeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    try {
      const res = await this.fetchImpl(this.baseUrl + path, {
        method,
        headers: {
          Authorization: `Bearer ${this.options.apiKey}`,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: combined,
      });
      if (stream && res.status === 200) {
        return { kind: 'answer', answer: { status: res.status, headers: res.headers, body: null, requestId: res.headers.get('x-request-id'), response: res } };
      }
      const text = await res.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null; // not JSON (a proxy's page): judged by its status
      }
      return { kind: 'answer', answer: { status: res.status, headers: res.headers, body: parsed, requestId: res.headers.get('x-request-id') } };
    } catch (error) {
      if (signal?.aborted) throw abortError(signal);
      // Refused connections never carried the request; anything later (reset, timeout) may have.
      return { kind: 'network', error, sent: !NOT_SENT_CODES.has(errorCodeOf(error) ?? '') };
    } finally {
      clearTimeout(timer);
    }
  }

  private noteRateLimit(answer: HttpAnswer): void {
    this.stats.rateLimited++;
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + retryAfterMs(answer.headers));
  }

  private backoffMs(failures: number): number {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (failures - 1));
    return Math.floor(this.random() * ceiling); // full jitter
  }

  /**
   * Sends until an answer is final: any 2xx, or any 4xx but 429. 429 waits Retry-After (or the
   * RateLimit header's t); 500/502/503/504 and network failures back off exponentially with full
   * jitter. `onAmbiguous` is asked after a failure the service may have processed (a network
   * failure after sending, or 500/502/503/504); an answer it returns ends the loop unsent.
   * Throws ContactSyncError when the attempts or the time run out.
   */
  async send(
    method: HttpMethod,
    path: string,
    options: {
      body?: unknown;
      signal?: AbortSignal;
      /** Headers of each attempt (e.g. a fresh X-Client-Request-Id). */
      headersFor?: (attempt: number) => Record<string, string>;
      onAmbiguous?: (attempt: number) => Promise<HttpAnswer | null>;
      /** Told of every attempt that got a 429 (never processed). */
      onRateLimited?: (attempt: number) => void;
      /**
       * A create that must not be repeated blindly (POST /lists, /fields): stop at the first answer
       * that may hide a success (500, 502, 504, or a connection lost after sending) and throw it.
       * 503 (nothing written), 429 and connections refused before sending are still retried.
       */
      stopWhenAmbiguous?: boolean;
      /** A 200 is returned with its body unread (`answer.response`), for a streamed answer. */
      stream?: boolean;
    } = {},
  ): Promise<{ answer: HttpAnswer; attempts: number; recoveredFrom?: number }> {
    const started = Date.now();
    let failures = 0;
    let last: Attempt | undefined;
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) this.stats.retried++;
      last = await this.attempt(method, path, options.body, options.headersFor?.(attempt) ?? {}, options.signal, options.stream);
      if (last.kind === 'answer') {
        const { answer } = last;
        if (answer.status === 429) {
          this.noteRateLimit(answer);
          options.onRateLimited?.(attempt);
          // The shared pause does the waiting, unless it ends past the time allowed.
          if (this.pausedUntil - started > this.retry.maxElapsedMs) throw errorFromAnswer(answer, attempt);
          continue;
        }
        if (!RETRIED_STATUSES.has(answer.status)) return { answer, attempts: attempt };
        if (options.stopWhenAmbiguous && answer.status !== 503) throw errorFromAnswer(answer, attempt);
        if (AMBIGUOUS_STATUSES.has(answer.status) && options.onAmbiguous) {
          const recovered = await options.onAmbiguous(attempt);
          if (recovered) return { answer: recovered, attempts: attempt, recoveredFrom: attempt };
        }
      } else if (last.sent && options.stopWhenAmbiguous) {
        throw new ContactSyncError(
          `The connection broke after the request was sent; it may have been processed: ${String((last.error as Error)?.message ?? last.error)}`,
          null,
          'NETWORK_ERROR',
          null,
          attempt,
          { cause: last.error },
        );
      } else if (last.sent && options.onAmbiguous) {
        const recovered = await options.onAmbiguous(attempt);
        if (recovered) return { answer: recovered, attempts: attempt, recoveredFrom: attempt };
      }
      failures++;
      const delay = this.backoffMs(failures);
      if (failures >= this.retry.maxAttempts || Date.now() + delay - started > this.retry.maxElapsedMs) {
        throw last.kind === 'answer'
          ? errorFromAnswer(last.answer, attempt)
          : new ContactSyncError(`No answer from the service: ${String((last.error as Error)?.message ?? last.error)}`, null, 'NETWORK_ERROR', null, attempt, {
              cause: last.error,
            });
      }
      await sleep(delay, options.signal);
    }
  }

  /** GET with the retry rules; the final answer (2xx or a 4xx) is returned as is. */
  get(path: string, signal?: AbortSignal) {
    return this.send('GET', path, { signal });
  }

  /**
   * GET /api/v2/requests?clientRequestId=: the stored answer of an attempt, or null when there is
   * none (404) or it cannot be learned (the lookup's own retries ran out).
   */
  async lookUp(clientRequestId: string, signal?: AbortSignal): Promise<StoredResponse | null> {
    this.stats.lookups++;
    try {
      const { answer } = await this.get(`/api/v2/requests?clientRequestId=${encodeURIComponent(clientRequestId)}`, signal);
      return answer.status === 200 ? (answer.body as StoredResponse) : null;
    } catch (error) {
      if (error instanceof ContactSyncError) return null;
      throw error; // aborted
    }
  }
}
