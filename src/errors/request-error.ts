import { RequestErrorCode, httpStatusOf } from './error-codes';

/**
 * A request-level error: thrown anywhere on the request path, rendered by the global
 * RequestErrorFilter as `{ request_id, error: { code, message } }`.
 */
export class RequestError extends Error {
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

export const invalidRequest = (message: string) => new RequestError(RequestErrorCode.INVALID_REQUEST, message);
