import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { TextDecoder } from 'node:util';
import zlib from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
import { from, Observable, switchMap } from 'rxjs';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { RequestError, invalidRequest } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';

/** Contract section 1: 1 MB read as 1 MiB of decoded body. */
export const BODY_LIMIT_BYTES = 1_048_576;

/**
 * Reads and parses a JSON body after the guards (per-IP limit, API key, organization limit), so an
 * unauthenticated or throttled request never makes the server read its body. Only POST has a body.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    if (req.method !== 'POST') return next.handle();
    return from(readJsonBody(req, this.config.BODY_TIMEOUT_MS)).pipe(switchMap(() => next.handle()));
  }
}

/**
 * Checks, in this order: declared size (413 before reading), media type and charset, content
 * encoding (400), then reads at most BODY_LIMIT_BYTES + 1 decoded bytes (413 as soon as the limit
 * is passed: a compressed body is never inflated further), then UTF-8 and JSON (400).
 *
 * Decided: the checks that need only headers come first, so a body that will be refused anyway is
 * never read; a chunked body of a wrong media type is therefore 400 whatever its size.
 * Our own reader, not body-parser: on any error body-parser reads the whole remaining request
 * before answering, which would make a 413 wait for (and read) an arbitrarily large body.
 * A body not received within `timeoutMs` of the start of reading is 408 REQUEST_TIMEOUT (a body
 * trickled byte by byte would otherwise hold the connection for Node's 300 s request timeout).
 */
export async function readJsonBody(req: Request, timeoutMs: number): Promise<void> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > BODY_LIMIT_BYTES) throw tooLarge();
  checkMediaType(req.headers['content-type']);
  const decoded = decodedStream(req);
  // Everything that needs only headers has passed: now a client waiting for it may send the body.
  if (/100-continue/i.test(req.headers.expect ?? '')) req.res?.writeContinue();

  const body = await readLimited(req, decoded, timeoutMs);
  if (body === 'too-large') throw tooLarge();
  if (body.length === 0) throw invalidRequest('Request body is empty: a JSON document is required');
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

/**
 * `application/json`, case-insensitive, with any charset parameter (contract section 1): the
 * parameter is not trusted either way; the body itself must be UTF-8, which is checked on its bytes.
 */
function checkMediaType(header: string | undefined): void {
  const [type] = (header ?? '').split(';');
  if (type.trim().toLowerCase() !== 'application/json') {
    throw invalidRequest('Content-Type must be application/json');
  }
}

/** The body as sent, or a decompressing stream for gzip, deflate and br. */
function decodedStream(req: Request): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  switch (encoding) {
    case 'identity':
    case '':
      return req;
    case 'gzip':
    case 'x-gzip':
      return req.pipe(zlib.createGunzip());
    case 'deflate':
      return req.pipe(zlib.createInflate());
    case 'br':
      return req.pipe(zlib.createBrotliDecompress());
    default:
      throw invalidRequest(`Unsupported Content-Encoding: ${encoding}`);
  }
}

/**
 * Collects the decoded body, stopping as soon as it passes the limit: the decompressor is
 * destroyed and the request no longer read (the answer then closes the connection).
 */
function readLimited(req: Request, stream: Readable, timeoutMs: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const timer = setTimeout(() => {
      req.pause();
      finish(new RequestError(RequestErrorCode.REQUEST_TIMEOUT, `Request body was not received within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = (outcome: Buffer | 'too-large' | RequestError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.off('data', onData);
      if (stream !== req) {
        req.unpipe(stream as Transform); // a decompressor (the only other stream)
        stream.destroy();
      }
      if (outcome instanceof RequestError) reject(outcome);
      else resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        req.pause();
        finish('too-large');
        return;
      }
      chunks.push(chunk);
    };
    stream.on('data', onData);
    stream.on('end', () => finish(Buffer.concat(chunks, size)));
    stream.on('error', () => finish(invalidRequest('Request body could not be read or decoded')));
    if (stream !== req) req.on('error', () => finish(invalidRequest('Request body could not be read')));
    req.on('aborted', () => finish(invalidRequest('Request body was not sent completely')));
  });
}

const tooLarge = () =>
  new RequestError(RequestErrorCode.PAYLOAD_TOO_LARGE, `Request body exceeds ${BODY_LIMIT_BYTES} bytes`);
