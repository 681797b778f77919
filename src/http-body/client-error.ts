import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Logger } from '@nestjs/common';
import { markBodyMalformed } from './json-body';
import type { RequestErrorBody } from '../errors/error-body';
import { RequestErrorCode, httpStatusOf } from '../errors/error-codes';

/** The line of an answer written here, shaped like the request lines of pino-http (common/logging.ts). */
const logger = new Logger('HTTP');

/** The responses still being answered on each connection, oldest first (pipelined requests queue). */
const answering = new WeakMap<Duplex, Set<ServerResponse>>();

/**
 * Follows the requests being answered on each connection, so that answerClientError knows what is
 * in flight on the socket Node hands it. Every 'request' (also those re-emitted from
 * 'checkContinue' / 'checkExpectation') is added, and removed when its response closes.
 */
export function trackResponses(server: Server): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    let responses = answering.get(socket);
    if (!responses) answering.set(socket, (responses = new Set()));
    responses.add(res);
    res.once('close', () => responses.delete(res));
  });
}

/**
 * Requests Node's HTTP parser refuses (malformed request line or headers, headers too large, a
 * broken chunked body) and requests not received in time never reach Express, or stop in the
 * middle of it. Node's default answer has neither X-Request-Id nor a body; this one is the
 * contract's request-level error (400 INVALID_REQUEST, or 408 REQUEST_TIMEOUT for headers/request
 * not received within the configured time) and closes the connection. Every such answer has
 * exactly one log line with its status: a request already routed is answered through its own
 * response (so its request line, metrics and id are those of any other answer; a broken body is
 * answered by the body reader); one refused before routing gets a line here.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const responses = [...(answering.get(socket) ?? [])];
  // An answer already under way cannot be replaced without corrupting the stream: just close.
  if (!socket.writable || error.code === 'ECONNRESET' || responses.some((res) => res.headersSent)) {
    socket.destroy();
    return;
  }
  // The request whose bytes Node was parsing when it failed: the last one it handed over.
  const inFlight = responses.at(-1);
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const code = timedOut ? RequestErrorCode.REQUEST_TIMEOUT : RequestErrorCode.INVALID_REQUEST;
  const message = timedOut
    ? 'The request was not received in time'
    : error.code === 'HPE_HEADER_OVERFLOW'
      ? 'Request headers are too large'
      : inFlight
        ? 'Malformed HTTP request body'
        : 'Malformed HTTP request';
  if (inFlight && !timedOut) {
    // The connection cannot carry another request: each answer still due closes it.
    for (const res of responses) res.setHeader('Connection', 'close');
    // The request being handled arrived whole: the bytes that failed come after it (a pipelined
    // request, or more body than its Content-Length said). It gets its own answer, then the
    // connection closes; those bytes get none.
    if (inFlight.req.complete) return;
    // Otherwise the request is being handled (perhaps not even past its middleware yet): its body
    // reader answers 400 through the ordinary path.
    markBodyMalformed(inFlight.req, message);
    return;
  }
  if (inFlight) {
    answerThroughResponse(inFlight, code, message);
    return;
  }
  const requestId = randomUUID();
  writeRequestError(socket, requestId, code, message);
  logRefused(requestId, httpStatusOf(code), error.code ?? 'unknown');
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
  const requestId = randomUUID();
  writeRequestError(socket, requestId, RequestErrorCode.NOT_FOUND, 'No route for CONNECT');
  logRefused(requestId, 404, 'CONNECT', 'CONNECT');
}

/** A routed request whose rest could not be parsed: its own response carries the answer (and logs it). */
function answerThroughResponse(res: ServerResponse, code: RequestErrorCode, message: string): void {
  const assigned = res.getHeader('X-Request-Id');
  const requestId = typeof assigned === 'string' ? assigned : randomUUID();
  const json = JSON.stringify({ request_id: requestId, error: { code, message } } satisfies RequestErrorBody);
  res.statusCode = httpStatusOf(code);
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.setHeader('Connection', 'close');
  res.end(json);
}

/** The request line of an answer written on the raw connection (no method or path: they were not parsed). */
function logRefused(requestId: string, status: number, reason: string, method?: string): void {
  logger.log({ req: { id: requestId, method, url: '' }, res: { statusCode: status, headersSent: true }, reason }, 'request refused before routing');
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
