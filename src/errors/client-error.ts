import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { RequestErrorBody } from './error-body';
import { RequestErrorCode, httpStatusOf } from './error-codes';

/**
 * Requests Node's HTTP parser refuses (malformed request line or headers, headers too large)
 * never reach Express. Node's default answer has neither X-Request-Id nor a body; this one is
 * the contract's request-level error, 400 INVALID_REQUEST, and closes the connection.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const code = RequestErrorCode.INVALID_REQUEST;
  const message = error.code === 'HPE_HEADER_OVERFLOW' ? 'Request headers are too large' : 'Malformed HTTP request';
  const body: RequestErrorBody = { request_id: requestId, error: { code, message } };
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${httpStatusOf(code)} Bad Request\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      json,
  );
}
