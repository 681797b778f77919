import { RequestError } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';

/** Seconds a caller is told to wait after a 503 (the pool replaces dead connections at once). */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * SQLSTATEs meaning "the database cannot serve right now": connection exceptions (class 08),
 * admin/crash shutdown and cannot-connect-now (57P01–57P03), statement timeout (57014),
 * idle-in-transaction timeout (25P03), too many connections (53300), and the server's own I/O
 * errors (class 58: 58000, 58030 io_error, 58P01 undefined_file, 58P02 duplicate_file; e.g. its data
 * folder deleted under it): the request is fine, the database cannot serve it.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '25P03', '53300', '58000', '58030', '58P01', '58P02']);

/** Driver-side messages of a connection that is gone or never came (node-postgres has no codes for them). */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Query read timeout',
  'Cannot use a pool after calling end',
];
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENOENT']);

/** True when the error says the connection (or the server) is gone: the client must be destroyed. */
export function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code))) return true;
  return CONNECTION_MESSAGES.some((message) => error.message.includes(message));
}

/** True when a request failing with this error should answer 503 (nothing was written). */
export function isUnavailable(error: unknown): boolean {
  if (isConnectionLost(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE_SQLSTATES.has(code);
}

export function serviceUnavailable(cause: unknown): RequestError {
  const error = new RequestError(RequestErrorCode.SERVICE_UNAVAILABLE, 'The database cannot serve right now; retry later', {
    'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
  });
  error.cause = cause;
  return error;
}

/**
 * The one classification of database failures. Before COMMIT was sent, a lost connection or a
 * timeout means the transaction rolled back: 503. While COMMIT was in flight the outcome is
 * unknown: the error stays what it is (500 INTERNAL_ERROR, never "retry, nothing was written").
 */
export function classifyDatabaseError(error: unknown, commitInFlight: boolean): unknown {
  if (error instanceof RequestError) return error;
  if (commitInFlight) return error;
  return isUnavailable(error) ? serviceUnavailable(error) : error;
}
