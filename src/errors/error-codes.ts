/** Codes of request-level errors (docs/api.md#request-level-errors); each has exactly one HTTP status. */
export enum RequestErrorCode {
  INVALID_REQUEST = 'INVALID_REQUEST',
  BATCH_LIMIT_EXCEEDED = 'BATCH_LIMIT_EXCEEDED',
  INVALID_API_KEY = 'INVALID_API_KEY',
  NOT_FOUND = 'NOT_FOUND',
  CONTACT_NOT_FOUND = 'CONTACT_NOT_FOUND',
  REQUEST_NOT_FOUND = 'REQUEST_NOT_FOUND',
  LIST_NOT_FOUND = 'LIST_NOT_FOUND',
  FIELD_NOT_FOUND = 'FIELD_NOT_FOUND',
  SUPPRESSION_NOT_FOUND = 'SUPPRESSION_NOT_FOUND',
  /** The API key lacks the scope of the endpoint (docs/api.md, "Key scopes"). */
  INSUFFICIENT_SCOPE = 'INSUFFICIENT_SCOPE',
  /** A `complained` suppression: only the admin command line lifts it. */
  SUPPRESSION_LOCKED = 'SUPPRESSION_LOCKED',
  /** A contact is always in at least one list: delete it instead. */
  LAST_LIST_MEMBERSHIP = 'LAST_LIST_MEMBERSHIP',
  FIELD_KEY_TAKEN = 'FIELD_KEY_TAKEN',
  WEBHOOK_NOT_FOUND = 'WEBHOOK_NOT_FOUND',
  /** Unknown, malformed, expired or another organization's import (contract 17). */
  IMPORT_NOT_FOUND = 'IMPORT_NOT_FOUND',
  /** The import already ended: completed, cancelled or failed. */
  IMPORT_FINISHED = 'IMPORT_FINISHED',
  /** An organization has at most 20 webhooks. */
  WEBHOOK_LIMIT_REACHED = 'WEBHOOK_LIMIT_REACHED',
  /** An events feed cursor behind the retention boundary (docs/events.md). */
  CURSOR_EXPIRED = 'CURSOR_EXPIRED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  RATE_LIMIT_EXCEEDED = 'RATE_LIMIT_EXCEEDED',
  /** Two exports of the organization stream already (contract section 17); carries Retry-After. */
  TOO_MANY_EXPORTS = 'TOO_MANY_EXPORTS',
  /** Headers or body not received in time; the connection is closed. */
  REQUEST_TIMEOUT = 'REQUEST_TIMEOUT',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
  /** The database cannot serve right now and nothing was written; carries Retry-After. */
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
}

/** The `default` of an exhaustive switch: the compiler flags a value left unhandled. */
export function assertUnreachable(value: never): never {
  throw new Error(`Unhandled value: ${String(value)}`);
}

/** The one mapping from code to HTTP status; the compiler flags a code without a status. */
export function httpStatusOf(code: RequestErrorCode): number {
  switch (code) {
    case RequestErrorCode.INVALID_REQUEST:
    case RequestErrorCode.BATCH_LIMIT_EXCEEDED:
      return 400;
    case RequestErrorCode.INVALID_API_KEY:
      return 401;
    case RequestErrorCode.REQUEST_TIMEOUT:
      return 408;
    case RequestErrorCode.NOT_FOUND:
    case RequestErrorCode.CONTACT_NOT_FOUND:
    case RequestErrorCode.REQUEST_NOT_FOUND:
    case RequestErrorCode.LIST_NOT_FOUND:
    case RequestErrorCode.FIELD_NOT_FOUND:
    case RequestErrorCode.SUPPRESSION_NOT_FOUND:
    case RequestErrorCode.WEBHOOK_NOT_FOUND:
    case RequestErrorCode.IMPORT_NOT_FOUND:
      return 404;
    case RequestErrorCode.INSUFFICIENT_SCOPE:
      return 403;
    case RequestErrorCode.SUPPRESSION_LOCKED:
    case RequestErrorCode.LAST_LIST_MEMBERSHIP:
    case RequestErrorCode.FIELD_KEY_TAKEN:
    case RequestErrorCode.WEBHOOK_LIMIT_REACHED:
    case RequestErrorCode.IMPORT_FINISHED:
      return 409;
    case RequestErrorCode.CURSOR_EXPIRED:
      return 410;
    case RequestErrorCode.PAYLOAD_TOO_LARGE:
      return 413;
    case RequestErrorCode.RATE_LIMIT_EXCEEDED:
    case RequestErrorCode.TOO_MANY_EXPORTS:
      return 429;
    case RequestErrorCode.INTERNAL_ERROR:
      return 500;
    case RequestErrorCode.SERVICE_UNAVAILABLE:
      return 503;
    default:
      return assertUnreachable(code);
  }
}
