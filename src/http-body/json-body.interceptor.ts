import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import bodyParser from 'body-parser';
import type { Request, Response } from 'express';
import { TextDecoder } from 'node:util';
import { from, Observable, switchMap } from 'rxjs';
import { DomainError, invalidRequest } from '../errors/domain-error';
import { RequestErrorCode } from '../errors/error-codes';

const utf8 = {
  decoder: new TextDecoder('utf-8', { fatal: true }),
  isValid(buf: Buffer): boolean {
    try {
      this.decoder.decode(buf);
      return true;
    } catch {
      return false;
    }
  },
};

/** Contract section 1: 1 MB read as 1 MiB of decoded body. */
export const BODY_LIMIT_BYTES = 1_048_576;

const parseJson = bodyParser.json({
  limit: BODY_LIMIT_BYTES,
  strict: false, // scalars parse, and are then refused by the shape check with a clear message
  type: () => true, // the media type is checked before, with the contract's error
  inflate: true,
  verify: (_req, _res, buf) => {
    // body-parser reads "" as {}; the contract calls an empty body malformed JSON.
    if (buf.length === 0) throw invalidRequest('Request body is empty: a JSON document is required');
    if (!utf8.isValid(buf)) throw invalidRequest('Request body must be UTF-8');
  },
});

/**
 * Reads and parses a JSON body after the guards (API key, organization limit), so an
 * unauthenticated or throttled request never makes the server read its body.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    if (req.method !== 'POST') return next.handle();
    return from(readJsonBody(req, http.getResponse<Response>())).pipe(switchMap(() => next.handle()));
  }
}

export async function readJsonBody(req: Request, res: Response): Promise<void> {
  const contentType = req.headers['content-type'];
  if (!contentType || !/^application\/json\s*(;|$)/i.test(contentType)) {
    throw invalidRequest('Content-Type must be application/json');
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > BODY_LIMIT_BYTES) throw tooLarge();

  await new Promise<void>((resolve, reject) => {
    parseJson(req, res, (error?: unknown) => (error ? reject(toDomainError(error)) : resolve()));
  });
  if (req.body === undefined) throw invalidRequest('Request body is empty: a JSON document is required');
}

const tooLarge = () =>
  new DomainError(RequestErrorCode.PAYLOAD_TOO_LARGE, `Request body exceeds ${BODY_LIMIT_BYTES} bytes`);

function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') return tooLarge();
  if (type === 'encoding.unsupported') return invalidRequest('Unsupported Content-Encoding');
  if (type === 'charset.unsupported') return invalidRequest('Request body must be UTF-8');
  return invalidRequest('Request body is not valid JSON');
}
