import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { invalidRequest } from '../errors/request-error';

/** X-Client-Request-Id (docs/api.md#lost-responses): a way to find an answer, not an idempotency key. */
export const CLIENT_REQUEST_ID_HEADER = 'X-Client-Request-Id';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isValidClientRequestId(value: unknown): value is string {
  return typeof value === 'string' && CLIENT_REQUEST_ID.test(value);
}

type WithClientRequestId = Request & { clientRequestId?: string };

/**
 * On both POST endpoints (controller-scoped, so after the global guards: the key and the limits)
 * and before JsonBodyInterceptor reads the body. An absent header is fine; an empty, repeated or
 * malformed one is 400 INVALID_REQUEST. A valid id is echoed on every answer from here on.
 */
@Injectable()
export class ClientRequestIdGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
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
