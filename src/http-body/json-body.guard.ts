import { applyDecorators, type CanActivate, ExecutionContext, Inject, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';
import { TextDecoder } from 'node:util';
import zlib from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { RequestError, invalidRequest } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { DRAIN_BODY_GRACE_MS, onDrainStart } from './graceful-shutdown';

const METHODS_WITH_BODY: ReadonlySet<string> = new Set(['POST', 'PATCH']);

/** 1,048,576 bytes of decoded body at most (docs/api.md#basics). */
export const BODY_LIMIT_BYTES = 1_048_576;

const TAKES_NO_BODY = 'takesNoBody';
const CHECKS_AFTER_BODY = 'checksAfterBody';

/**
 * On a route guard class: it checks the request after its body is read (it goes after
 * JsonBodyGuard among the route's guards), still before the route's interceptors and pipes.
 */
export const ChecksAfterBody = (): ClassDecorator => (target) => Reflect.defineMetadata(CHECKS_AFTER_BODY, true, target);

export const checksAfterBody = (guard: unknown) => typeof guard === 'function' && Reflect.getMetadata(CHECKS_AFTER_BODY, guard) === true;

/**
 * Reads and parses a JSON body after the guards (per-IP limit, API key, organization limit), so an
 * unauthenticated, throttled or out-of-scope request never makes the server read its body. POST
 * and PATCH have a body (docs/api.md: PATCH /lists/{id}, PATCH /fields/{key}); other methods none.
 *
 * Every POST and PATCH route names it, with `@JsonBody()` or `@TakesNoBody()` (below), or in its
 * `@UseGuards(...)` list: after the global guards and the route's header checks (e.g.
 * ClientRequestIdGuard), before the guards marked `@ChecksAfterBody()` (DryRunCheck) and before the
 * route's interceptors and pipes. test/http-body/json-body.e2e-spec.ts fails for a POST or PATCH
 * route without it, or with it out of that order.
 *
 * Why a route guard (docs/extending.md §3):
 * - not global: a GET or DELETE would run it for nothing;
 * - a guard, not an interceptor: a route with no interceptor skips Nest's interceptor chain (rxjs,
 *   async-context bindings): ~27 kB of allocation a GET (edge8) and ~37 kB a POST (single8)
 *   (docs/performance.md, "Per-request fixed cost (edge8)", "The single create's fixed cost");
 * - named at each route, with Nest's own `@UseGuards`, rather than put on every POST/PATCH handler
 *   at startup by rewriting Nest's metadata (edge8's `readJsonBodiesOn`): the same effect, but
 *   nothing at the route told its author.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    if (!METHODS_WITH_BODY.has(req.method)) return true;
    if (this.reflector.get<boolean>(TAKES_NO_BODY, context.getHandler())) await readNoBody(req, this.config.BODY_TIMEOUT_MS);
    else await readJsonBody(req, this.config.BODY_TIMEOUT_MS);
    return true;
  }
}

/**
 * On a POST or PATCH route: its body is a JSON document, read and parsed by JsonBodyGuard into
 * `@Body()`. Nest applies decorators bottom-up and runs a route's guards in that order: guards
 * declared below this one run before the body is read, those above after it. A guard marked
 * `@ChecksAfterBody()` below it throws when the class is defined.
 */
export const JsonBody = (): MethodDecorator => readsBody('JsonBody');

/**
 * On a POST that acts without input (docs/api.md, e.g. "Erasing a contact"), instead of
 * `@JsonBody()`, placed the same way: no body, an empty body or `{}` is accepted; anything else is
 * 400 INVALID_REQUEST.
 */
export const TakesNoBody = (): MethodDecorator => applyDecorators(SetMetadata(TAKES_NO_BODY, true), readsBody('TakesNoBody'));

function readsBody(name: string): MethodDecorator {
  const use = UseGuards(JsonBodyGuard);
  return (target, key, descriptor) => {
    // Guards already there were applied first, so they run before the body is read.
    const applied = (Reflect.getMetadata(GUARDS_METADATA, descriptor.value as object) as unknown[] | undefined) ?? [];
    if (applied.some(checksAfterBody)) {
      const route = `${(target as { constructor: { name: string } }).constructor.name}.${String(key)}`;
      throw new Error(`@${name}() of ${route} must be below the guards that check after the body (@ChecksAfterBody): they would run before it is read`);
    }
    use(target, key, descriptor);
  };
}

/** Requests whose body Node's HTTP parser could not parse (a broken chunked encoding), with the message to answer. */
const malformedBodies = new WeakMap<IncomingMessage, string>();
/** The body reader of a request, told at once when its body turns out malformed. */
const bodyReaders = new WeakMap<IncomingMessage, (error: RequestError) => void>();

/**
 * Called for a request already routed when Node's parser fails on its body (http-body/client-error.ts):
 * the body reader answers 400 through the ordinary path (filter, log line, metrics), now if it is
 * reading, or as soon as it starts. A route that never reads a body answers as usual.
 */
export function markBodyMalformed(req: IncomingMessage, message: string): void {
  if (malformedBodies.has(req)) return;
  malformedBodies.set(req, message);
  bodyReaders.get(req)?.(malformedBody(message));
}

const malformedBody = (message: string) => {
  const error = invalidRequest(message);
  error.bodyAbandoned = true; // the parser stopped: nothing more of this body can be read
  return error;
};

/** `Expect: 100-continue`: tells the client, which waits for it, to send its body now. */
function continueIfAwaited(req: Request): void {
  if (/100-continue/i.test(req.headers.expect ?? '')) req.res?.writeContinue();
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
 * When SIGTERM's drain starts, a body still arriving gets DRAIN_BODY_GRACE_MS more, then 503
 * SERVICE_UNAVAILABLE ("shutting down"), so a slow uploader never holds the shutdown.
 */
export async function readJsonBody(req: Request, timeoutMs: number): Promise<void> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > BODY_LIMIT_BYTES) throw tooLarge();
  checkMediaType(req.headers['content-type']);
  const decoded = decodedStream(req);
  // Everything that needs only headers has passed: now a client waiting for it may send the body.
  continueIfAwaited(req);

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
 * The body of a POST that takes none: nothing (whatever the headers say), or a JSON `{}` under
 * the usual rules (size, media type, encoding, UTF-8). Anything else is 400 INVALID_REQUEST.
 */
export async function readNoBody(req: Request, timeoutMs: number): Promise<void> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > BODY_LIMIT_BYTES) throw tooLarge();
  const noBody = declared === 0 || (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined);
  if (noBody) {
    req.body = undefined;
    return;
  }
  const decoded = decodedStream(req);
  // A client waiting for "100 Continue" before it sends its `{}` would otherwise wait for the body
  // timeout (408) (probe10).
  continueIfAwaited(req);
  const body = await readLimited(req, decoded, timeoutMs);
  if (body === 'too-large') throw tooLarge();
  if (body.length === 0) {
    req.body = undefined;
    return;
  }
  checkMediaType(req.headers['content-type']);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw invalidRequest('Request body is not valid UTF-8 JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.keys(parsed).length > 0) {
    throw invalidRequest('This endpoint takes no body: send none, an empty body or {}');
  }
  req.body = undefined;
}

/**
 * `application/json`, case-insensitive, with any charset parameter (docs/api.md#basics): the
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
    const abandon = (error: RequestError) => {
      req.pause();
      error.bodyAbandoned = true;
      finish(error);
    };
    const timer = setTimeout(
      () => abandon(new RequestError(RequestErrorCode.REQUEST_TIMEOUT, `Request body was not received within ${timeoutMs} ms`)),
      timeoutMs,
    );
    let graceTimer: NodeJS.Timeout | undefined;
    const stopListening = onDrainStart(req, () => {
      graceTimer = setTimeout(() => abandon(shuttingDown()), DRAIN_BODY_GRACE_MS);
    });
    bodyReaders.set(req, (error) => finish(error));
    const finish = (outcome: Buffer | 'too-large' | RequestError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      stopListening();
      bodyReaders.delete(req);
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
    const malformed = malformedBodies.get(req);
    if (malformed !== undefined) finish(malformedBody(malformed));
  });
}

/** Contract section 8: 503 covers "shutting down"; the caller retries (on another instance). */
const shuttingDown = () => {
  const error = new RequestError(RequestErrorCode.SERVICE_UNAVAILABLE, 'The service is shutting down; retry the request', { 'Retry-After': '1' });
  error.unavailableReason = 'shutting_down';
  return error;
};

const tooLarge = () =>
  new RequestError(RequestErrorCode.PAYLOAD_TOO_LARGE, `Request body exceeds ${BODY_LIMIT_BYTES} bytes`);
