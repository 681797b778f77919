/** Codes of request-level errors (contract section 8); each has exactly one HTTP status. */
export enum RequestErrorCode {
  INVALID_REQUEST = 'INVALID_REQUEST',
  BATCH_LIMIT_EXCEEDED = 'BATCH_LIMIT_EXCEEDED',
  INVALID_API_KEY = 'INVALID_API_KEY',
  NOT_FOUND = 'NOT_FOUND',
  CONTACT_NOT_FOUND = 'CONTACT_NOT_FOUND',
  REQUEST_NOT_FOUND = 'REQUEST_NOT_FOUND',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  RATE_LIMIT_EXCEEDED = 'RATE_LIMIT_EXCEEDED',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
}

function assertUnreachable(value: never): never {
  throw new Error(`Unhandled error code: ${String(value)}`);
}

/** The one mapping from code to HTTP status; the compiler flags a code without a status. */
export function httpStatusOf(code: RequestErrorCode): number {
  switch (code) {
    case RequestErrorCode.INVALID_REQUEST:
    case RequestErrorCode.BATCH_LIMIT_EXCEEDED:
      return 400;
    case RequestErrorCode.INVALID_API_KEY:
      return 401;
    case RequestErrorCode.NOT_FOUND:
    case RequestErrorCode.CONTACT_NOT_FOUND:
    case RequestErrorCode.REQUEST_NOT_FOUND:
      return 404;
    case RequestErrorCode.PAYLOAD_TOO_LARGE:
      return 413;
    case RequestErrorCode.RATE_LIMIT_EXCEEDED:
      return 429;
    case RequestErrorCode.INTERNAL_ERROR:
      return 500;
    case RequestErrorCode.SERVICE_UNAVAILABLE:
      return 503;
    default:
      return assertUnreachable(code);
  }
}
