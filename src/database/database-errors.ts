import { RequestError } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';

/** Seconds a caller is told to wait after a 503 (the pool replaces dead connections at once). */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * SQLSTATEs meaning "the database cannot serve right now": connection exceptions (class 08),
 * admin/crash shutdown and cannot-connect-now (57P01–57P03), statement timeout (57014),
 * idle-in-transaction timeout (25P03), too many connections (53300), and the server's own I/O
 * errors (class 58: 58000, 58030 io_error, 58P01 undefined_file, 58P02 duplicate_file; e.g. its data
 * folder deleted under it), and a deadlock (40P01: PostgreSQL aborted this side of two transactions
 * that locked the same rows in opposite orders, e.g. a webhook's deletion and an attempt's outcome):
 * the request is fine, the database cannot serve it now, and the same request retried succeeds.
 */
const UNAVAILABLE_SQLSTATES = new Set(['40P01', '57P01', '57P02', '57P03', '57014', '25P03', '53300', '58000', '58030', '58P01', '58P02']);

/**
 * Driver-side messages of a connection that is gone or never came (node-postgres has no codes for
 * them). Each also has its cause for the operator's log line (faultCause, DRIVER_MESSAGE_CAUSES).
 */
export const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Query read timeout',
  'Cannot use a pool after calling end',
];
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENOENT']);

/**
 * Prisma Client's codes for a database it cannot reach or that dropped the connection: P1001 can't
 * reach, P1002 timed out reaching, P1008 operation timed out, P1017 server closed the connection.
 */
const PRISMA_CONNECTION_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017']);
/** …and for "cannot serve right now": P2024 pool timeout, P2037 too many connections. */
const PRISMA_UNAVAILABLE_CODES = new Set(['P2024', 'P2037']);
/** Driver-adapter error kinds (`DriverAdapterError.cause.kind`, adapter-pg) of a lost connection. */
const ADAPTER_CONNECTION_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout']);
/** What the classification reads of one layer of an error (errorLayers). */
export type ErrorLayer = {
  code?: unknown;
  errorCode?: unknown;
  message?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  originalMessage?: unknown;
  meta?: { code?: unknown };
};

/**
 * The one walk down an error's cause chain, for every reader of database errors (this file's
 * classification, isUniqueViolation, the contacts pipeline's retry of a conflict): the error and what it wraps,
 * the way Prisma nests a driver failure: PrismaClientKnownRequestError `meta.driverAdapterError`
 * → DriverAdapterError, whose `cause` is adapter-pg's mapping `{ kind, originalCode (SQLSTATE),
 * originalMessage }`; any Error's `cause`. Each object once (a cycle ends), at most 4 levels under
 * the error.
 */
export function errorLayers(error: unknown): ErrorLayer[] {
  const layers: ErrorLayer[] = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 4 || value === null || typeof value !== 'object' || layers.includes(value)) return;
    layers.push(value);
    visit((value as { cause?: unknown }).cause, depth + 1);
    visit((value as { meta?: { driverAdapterError?: unknown } }).meta?.driverAdapterError, depth + 1);
  };
  visit(error, 0);
  return layers;
}

const isConnectionSqlState = (code: string) => code.startsWith('08') || /^57P0[123]$/.test(code);

function layerLostConnection(layer: ErrorLayer): boolean {
  for (const code of [layer.code, layer.originalCode, layer.errorCode]) {
    if (typeof code !== 'string') continue;
    if (SOCKET_CODES.has(code) || isConnectionSqlState(code) || PRISMA_CONNECTION_CODES.has(code)) return true;
  }
  if (typeof layer.kind === 'string' && ADAPTER_CONNECTION_KINDS.has(layer.kind)) return true;
  return [layer.message, layer.originalMessage].some((text) => typeof text === 'string' && CONNECTION_MESSAGES.some((m) => text.includes(m)));
}

function layerUnavailable(layer: ErrorLayer): boolean {
  if (layerLostConnection(layer)) return true;
  for (const code of [layer.code, layer.originalCode, layer.errorCode]) {
    if (typeof code !== 'string') continue;
    if (UNAVAILABLE_SQLSTATES.has(code) || PRISMA_UNAVAILABLE_CODES.has(code)) return true;
  }
  return layer.kind === 'TooManyConnections';
}

/**
 * True when the error says the connection (or the server) is gone: the client must be destroyed.
 * Read through Prisma's wrapping too (driver-adapter errors, P1001/P1017, ...).
 */
export function isConnectionLost(error: unknown): boolean {
  return errorLayers(error).some(layerLostConnection);
}

/** True when a request failing with this error should answer 503 (nothing was written). */
export function isUnavailable(error: unknown): boolean {
  return errorLayers(error).some(layerUnavailable);
}

/** unique_violation (23505): a unique index refused the write (a taken key, a row inserted meanwhile). */
export function isUniqueViolation(error: unknown): boolean {
  return errorLayers(error).some((layer) => layer.code === '23505');
}

export function serviceUnavailable(cause: unknown): RequestError {
  const error = new RequestError(RequestErrorCode.SERVICE_UNAVAILABLE, 'The database cannot serve right now; retry later', {
    'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
  });
  error.cause = cause;
  error.unavailableReason = 'database';
  return error;
}

/** lock_not_available: a lock wait passed lock_timeout (DB_LOCK_TIMEOUT_MS). */
export function isLockTimeout(error: unknown): boolean {
  // On both paths: pg's error itself, or the SQLSTATE inside Prisma's wrapping.
  return errorLayers(error).some((layer) => layer.code === '55P03' || layer.originalCode === '55P03');
}

/**
 * A write waited past DB_LOCK_TIMEOUT_MS for locks other requests hold (mostly the per-email locks
 * of contacts they are writing; also a list's or field's row): 503 like a
 * database fault (nothing was written, retry), but saying what happened, and counted apart
 * (`service_unavailable_total{reason="lock_timeout"}`). Classified below the routes, so the
 * message names what is locked in words true of every path.
 */
export function lockWaitTimedOut(cause: unknown): RequestError {
  const error = new RequestError(
    RequestErrorCode.SERVICE_UNAVAILABLE,
    'What this request writes (contacts, a list or a field) is being changed by other requests right now; nothing was written, retry later',
    { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  );
  error.cause = cause;
  error.unavailableReason = 'lock_timeout';
  return error;
}

/**
 * The one classification of database failures, of both ways to the database: `Database` (pg
 * errors) and Prisma Client (its errors, read down to the driver's). Before COMMIT was sent, a lost
 * connection or a timeout means the transaction rolled back (or the autocommit statement did not
 * happen): 503. While COMMIT was in flight and its outcome could not be settled
 * (Database.transaction), the error stays what it is: 500 INTERNAL_ERROR, never "retry, nothing
 * was written". Applied inside Database and, for Prisma Client's errors, once per request by
 * RequestErrorFilter (through DATABASE_ERROR_CLASSIFIER).
 */
export function classifyDatabaseError(error: unknown, commitInFlight = false): unknown {
  if (error instanceof RequestError) return error;
  if (commitInFlight) return error;
  if (isLockTimeout(error)) return lockWaitTimedOut(error);
  return isUnavailable(error) ? serviceUnavailable(error) : error;
}

/**
 * The cause of a database fault, for the operator's log line (database/fault-log.ts): the socket
 * error code or SQLSTATE when there is one (ECONNREFUSED, 57P01, 57014, 08006, ...), else what
 * node-postgres' message says (it has no codes for its own time-outs). Read through a 503's
 * RequestError and Prisma's wrapping (the SQLSTATE of a driver-adapter error is in its `cause`);
 * Prisma's own code (P1001, P2024, ...) only when nothing under it says more.
 */
export function faultCause(error: unknown): string {
  const cause = underRequestError(error);
  const layers = errorLayers(cause);
  for (const layer of layers) {
    for (const code of [layer.code, layer.originalCode]) {
      if (typeof code === 'string' && code !== '' && !PRISMA_CODE.test(code)) return code;
    }
  }
  for (const layer of layers.length > 0 ? layers : [{ message: String(cause) }]) {
    for (const text of [layer.message, layer.originalMessage]) {
      if (typeof text !== 'string') continue;
      for (const [words, named] of DRIVER_MESSAGE_CAUSES) if (words.test(text)) return named;
    }
  }
  const prismaCode = layers.map((layer) => layer.code).find((code) => typeof code === 'string' && PRISMA_CODE.test(code));
  if (typeof prismaCode === 'string') return prismaCode;
  return 'unclassified';
}

/**
 * What node-postgres' messages say, in the order they are tried, for faults it has no code for: its
 * time-outs, a connection terminated, the data folder gone, and its words for a connection it
 * cannot use (a pooled client whose connection broke while it was handed to a request: the server
 * stopping terminates it between checkout and query; a client already closed; the pool closed at
 * shutdown). Named, not "unclassified": they are part of an outage like ECONNREFUSED and 57P01
 * (a PostgreSQL stop of a few seconds gives such "connection error" lines).
 */
const DRIVER_MESSAGE_CAUSES: ReadonlyArray<readonly [RegExp, string]> = [
  [/timeout exceeded when trying to connect/, 'pool wait timeout'],
  [/connection timeout/i, 'connect timeout'],
  [/Query read timeout/, 'query timeout'],
  [/Connection terminated/, 'connection terminated'],
  [/data folder/, 'data folder gone'],
  [/Client has encountered a connection error/, 'connection lost'],
  [/Client was closed and is not queryable/, 'client closed'],
  [/Cannot use a pool after calling end/, 'pool closed'],
];

const PRISMA_CODE = /^P\d{4}$/;

/** The error a 503's RequestError wraps (its `cause`), else the error itself. */
function underRequestError(error: unknown): unknown {
  return error instanceof RequestError && error.cause !== undefined ? error.cause : error;
}

/**
 * The driver's message of a fault, on one line, for the line faultCause names the cause of (not a
 * 503's "retry later", nor Prisma's multi-line "Invalid `prisma.$queryRaw()` invocation" text):
 * PostgreSQL's or the socket's words (the message, never the `detail` that can quote a row; an
 * email or key in it is still masked by the logs' last safety net, logging.ts maskSecrets).
 */
export function faultMessage(error: unknown): string {
  const cause = underRequestError(error);
  const original = errorLayers(cause).find((layer) => typeof layer.originalMessage === 'string')?.originalMessage;
  const text = typeof original === 'string' ? original : cause instanceof Error ? cause.message : String(cause);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}
