import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestErrorBody } from './error-body';
import { RequestErrorCode, httpStatusOf } from './error-codes';

/**
 * Requests Node's HTTP parser refuses (malformed request line or headers, headers too large) and
 * requests not received in time never reach Express. Node's default answer has neither
 * X-Request-Id nor a body; this one is the contract's request-level error (400 INVALID_REQUEST,
 * or 408 REQUEST_TIMEOUT for headers/request not received within the configured time) and
 * closes the connection.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  // An answer already under way cannot be replaced without corrupting the stream: just close.
  if (!socket.writable || error.code === 'ECONNRESET' || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  // A request already routed has its id; keep it so the answer matches the request's log line.
  const assigned = inFlight?.getHeader('X-Request-Id');
  const requestId = typeof assigned === 'string' ? assigned : randomUUID();
  const code = timedOut ? RequestErrorCode.REQUEST_TIMEOUT : RequestErrorCode.INVALID_REQUEST;
  const message = timedOut
    ? 'The request was not received in time'
    : error.code === 'HPE_HEADER_OVERFLOW'
      ? 'Request headers are too large'
      : 'Malformed HTTP request';
  writeRequestError(socket, requestId, code, message);
}

/**
 * `CONNECT` (a proxy's tunnel request) never reaches Express, and without a listener Node closes
 * the connection with no answer at all: answered like any method no route has, 404 NOT_FOUND.
 */
export function answerConnect(_req: IncomingMessage, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  writeRequestError(socket, randomUUID(), RequestErrorCode.NOT_FOUND, 'No route for CONNECT');
}

/** The contract's request-level error, written on the raw connection, which is then closed. */
function writeRequestError(socket: Duplex, requestId: string, code: RequestErrorCode, message: string): void {
  const status = httpStatusOf(code);
  const body: RequestErrorBody = { request_id: requestId, error: { code, message } };
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      json,
  );
}
