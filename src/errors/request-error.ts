import { RequestErrorCode, httpStatusOf } from './error-codes';

/**
 * A request-level error: thrown anywhere on the request path, rendered by the global
 * RequestErrorFilter as `{ request_id, error: { code, message } }`.
 */
export class RequestError extends Error {
  /** For a 503: why (the `reason` label of service_unavailable_total; docs/api.md "Errors"). */
  unavailableReason?: UnavailableReason;
  /**
   * The body stopped arriving (408 body timeout, shutdown): the connection is closed right after the
   * answer, without the lingering drain of a refused upload (there is nothing left to drain).
   */
  bodyAbandoned = false;

  constructor(
    readonly code: RequestErrorCode,
    message: string,
    /** Extra response headers (Retry-After, WWW-Authenticate, ...). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'RequestError';
  }

  get status(): number {
    return httpStatusOf(this.code);
  }
}

/** Why a 503 SERVICE_UNAVAILABLE was answered. */
export type UnavailableReason = 'database' | 'lock_timeout' | 'shutting_down';

export const invalidRequest = (message: string) => new RequestError(RequestErrorCode.INVALID_REQUEST, message);

/**
 * An unknown route, or a known path with another method (docs/api.md "Errors"). The path is never
 * echoed back: a caller may have pasted a key or an email into it, and error messages get logged
 * and shown by clients.
 */
export const noRoute = (method: string) => new RequestError(RequestErrorCode.NOT_FOUND, `No route for ${method} at this path`);
