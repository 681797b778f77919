import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { invalidRequest } from '../errors/request-error';

/** X-Client-Request-Id (docs/api.md#lost-responses): a way to find an answer, not an idempotency key. */
export const CLIENT_REQUEST_ID_HEADER = 'X-Client-Request-Id';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isValidClientRequestId(value: unknown): value is string {
  return typeof value === 'string' && CLIENT_REQUEST_ID.test(value);
}

type WithClientRequestId = Request & { clientRequestId?: string };

/** On a route handler that takes X-Client-Request-Id (the POSTs that write contacts, and imports). */
export const TakesClientRequestId = Reflector.createDecorator<true>({ transform: () => true });

/**
 * On the routes marked `@TakesClientRequestId()`: a global guard, after the key, the limits and the
 * scope, and before ReadBodyGuard reads the body. An absent header is fine; an empty, repeated or
 * malformed one is 400 INVALID_REQUEST. A valid id is echoed on every answer from here on.
 */
@Injectable()
export class ClientRequestIdGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.reflector.get(TakesClientRequestId, context.getHandler())) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<WithClientRequestId>();
    const values = req.headersDistinct[CLIENT_REQUEST_ID_HEADER.toLowerCase()];
    if (values === undefined) return true;
    // Node joins repeated headers with ", ", which the character set refuses anyway; count them to say so.
    if (values.length !== 1) throw invalidRequest(`${CLIENT_REQUEST_ID_HEADER} must be sent at most once`);
    const [value] = values;
    if (!isValidClientRequestId(value)) {
      throw invalidRequest(`${CLIENT_REQUEST_ID_HEADER} must be 1 to 128 characters of A-Z a-z 0-9 . _ : -`);
    }
    req.clientRequestId = value;
    http.getResponse<Response>().setHeader(CLIENT_REQUEST_ID_HEADER, value);
    return true;
  }
}

/** The POST's valid X-Client-Request-Id, or null when it sent none. */
export function clientRequestIdOf(req: Request): string | null {
  return (req as WithClientRequestId).clientRequestId ?? null;
}
