import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { TextDecoder } from 'node:util';
import zlib from 'node:zlib';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import getRawBody from 'raw-body';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError, invalidRequest } from '../errors/request-error';
import { DRAIN_BODY_GRACE_MS, onDrainStart } from './graceful-shutdown';

/** 1,048,576 bytes of decoded body at most (the contract's 1 MB, read as 1 MiB). */
export const BODY_LIMIT_BYTES = 1_048_576;

export interface JsonBodyOptions {
  /** Most bytes of decoded body (after Content-Encoding is undone). */
  limit: number;
  /** A body not received within this time of the start of reading is 408 REQUEST_TIMEOUT. */
  timeoutMs: number;
}

/**
 * Connect middleware that reads a JSON request body into `req.body` (undefined when the request
 * has none, whatever its headers say). ReadBodyGuard runs it after the guards (key,
 * organization limit, scope, header checks), so a request refused by them never has its body read.
 *
 * Checks, in this order: declared size (413 before reading), media type (`application/json`,
 * case-insensitive, any charset parameter), content encoding (gzip, deflate, br; anything else
 * 400), then reads at most `limit` decoded bytes with raw-body (413 as soon as the limit is passed:
 * a compressed body is never inflated further, the request is no longer read), then UTF-8 (checked
 * on the bytes, whatever the charset parameter says; a BOM is dropped) and JSON (400).
 *
 * body-parser's `json()` is not used: on any error it reads the whole remaining request before
 * answering, so a 413 would wait for (and read) an arbitrarily large body, and it refuses charset
 * parameters the contract accepts. A body not received within `timeoutMs` is 408; when SIGTERM's
 * drain starts, a body still arriving gets DRAIN_BODY_GRACE_MS more, then 503 ("shutting down"),
 * so a slow uploader never holds the shutdown.
 */
export function jsonBody(options: JsonBodyOptions): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    readJsonBody(req, options).then(() => next(), next);
  };
}

async function readJsonBody(req: Request, { limit, timeoutMs }: JsonBodyOptions): Promise<void> {
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  if (declared !== undefined && declared > limit) throw tooLarge(limit);
  if (declared === 0 || (declared === undefined && req.headers['transfer-encoding'] === undefined)) {
    req.body = undefined;
    return;
  }
  checkMediaType(req.headers['content-type']);
  const { stream, identity } = decodedStream(req);
  // Everything that needs only headers has passed: now a client waiting for it may send the body.
  if (/100-continue/i.test(req.headers.expect ?? '')) req.res?.writeContinue();

  const body = await readLimited(req, stream, { length: identity ? declared : undefined, limit, timeoutMs });
  if (body.length === 0) {
    req.body = undefined;
    return;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body); // also drops a UTF-8 BOM
  } catch {
    throw invalidRequest('Request body must be UTF-8');
  }
  try {
    req.body = JSON.parse(text); // JSON.parse keeps "__proto__" as an ordinary own key
  } catch {
    throw invalidRequest('Request body is not valid JSON');
  }
}

/** The media type alone decides; the charset parameter is not trusted either way (the bytes are checked). */
function checkMediaType(header: string | undefined): void {
  const [type] = (header ?? '').split(';');
  if (type.trim().toLowerCase() !== 'application/json') throw invalidRequest('Content-Type must be application/json');
}

/** The body as sent, or a decompressing stream for gzip, deflate and br. */
function decodedStream(req: Request): { stream: Readable; identity: boolean } {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  switch (encoding) {
    case 'identity':
    case '':
      return { stream: req, identity: true };
    case 'gzip':
    case 'x-gzip':
      return { stream: req.pipe(zlib.createGunzip()), identity: false };
    case 'deflate':
      return { stream: req.pipe(zlib.createInflate()), identity: false };
    case 'br':
      return { stream: req.pipe(zlib.createBrotliDecompress()), identity: false };
    default:
      throw invalidRequest(`Unsupported Content-Encoding: ${encoding}`);
  }
}

/** Requests whose body Node's HTTP parser could not parse (a broken chunked encoding), with the message to answer. */
const malformedBodies = new WeakMap<IncomingMessage, string>();
/** The body reader of a request, told at once when its body turns out malformed. */
const bodyReaders = new WeakMap<IncomingMessage, (error: RequestError) => void>();

/**
 * Called for a request already routed when Node's parser fails on its body (client-error.ts): the
 * body reader answers 400 through the ordinary path (filter, log line, metrics), now if it is
 * reading, or as soon as it starts. A route that never reads a body answers as usual.
 */
export function markBodyMalformed(req: IncomingMessage, message: string): void {
  if (malformedBodies.has(req)) return;
  malformedBodies.set(req, message);
  bodyReaders.get(req)?.(abandoned(invalidRequest(message)));
}

/** The body stopped arriving: the answer closes the connection without waiting for more of it. */
function abandoned(error: RequestError): RequestError {
  error.bodyAbandoned = true;
  return error;
}

/**
 * raw-body reads the decoded stream up to the limit; this races it against the body timeout, the
 * shutdown's grace and a parser failure reported by client-error.ts, which raw-body cannot see
 * (the request then simply stops emitting data).
 */
function readLimited(req: Request, stream: Readable, options: { length?: number; limit: number; timeoutMs: number }): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const finish = (outcome: Buffer | RequestError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      stopListening();
      bodyReaders.delete(req);
      if (outcome instanceof RequestError) {
        req.pause(); // nothing more is read: an answer that is not abandoned drains the rest (lingering close)
        if (stream !== req) {
          req.unpipe(stream as Transform); // a decompressor (the only other stream)
          stream.destroy();
        }
        reject(outcome);
      } else resolve(outcome);
    };
    const timer = setTimeout(
      () => finish(abandoned(new RequestError(RequestErrorCode.REQUEST_TIMEOUT, `Request body was not received within ${options.timeoutMs} ms`))),
      options.timeoutMs,
    );
    const stopListening = onDrainStart(req, () => {
      graceTimer = setTimeout(() => finish(abandoned(shuttingDown())), DRAIN_BODY_GRACE_MS);
    });
    bodyReaders.set(req, finish);
    const malformed = malformedBodies.get(req);
    if (malformed !== undefined) return finish(abandoned(invalidRequest(malformed)));
    if (stream !== req) req.once('error', () => finish(invalidRequest('Request body could not be read')));
    getRawBody(stream, { length: options.length, limit: options.limit }).then(
      (body) => finish(body),
      (error: { type?: string }) => finish(readError(error, options.limit)),
    );
  });
}

/** raw-body's errors as the contract's. */
function readError(error: { type?: string }, limit: number): RequestError {
  switch (error.type) {
    case 'entity.too.large':
      return tooLarge(limit);
    case 'request.aborted':
    case 'request.size.invalid':
      return invalidRequest('Request body was not sent completely');
    default: // a decompressor's error: not a valid gzip, deflate or br stream
      return invalidRequest('Request body could not be read or decoded');
  }
}

/** Contract section 8: 503 covers "shutting down"; the caller retries (on another instance). */
const shuttingDown = () => {
  const error = new RequestError(RequestErrorCode.SERVICE_UNAVAILABLE, 'The service is shutting down; retry the request', { 'Retry-After': '1' });
  error.unavailableReason = 'shutting_down';
  return error;
};

const tooLarge = (limit: number) => new RequestError(RequestErrorCode.PAYLOAD_TOO_LARGE, `Request body exceeds ${limit} bytes`);
