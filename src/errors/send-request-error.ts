import type { Request, Response } from 'express';
import { requestIdOf } from '../common/request-id';
import { lingerBeforeClose } from '../common/lingering-close';
import type { RequestError } from './request-error';
import type { RequestErrorBody } from './error-body';

/**
 * Writes a request-level error in the contract's one body shape. Used by the global filter and by
 * the per-IP middleware (which answers before Nest's routing, where no filter runs).
 */
export function sendRequestError(req: Request, res: Response, error: RequestError): void {
  const body: RequestErrorBody = { request_id: requestIdOf(req), error: { code: error.code, message: error.message } };
  // Refused before its body was read (401, 429, 413, media type...): close the connection after
  // the answer, so Node does not read (drain) the rest of the body to keep the connection alive;
  // the rest of an upload still arriving is drained for a bounded time first (lingering close),
  // so that the client reads this answer instead of a reset. A body that stopped arriving (408,
  // shutdown) is not waited for again.
  if (!req.complete) {
    res.setHeader('Connection', 'close');
    if (!error.bodyAbandoned) lingerBeforeClose(req);
  }
  if (error.unavailableReason) res.locals.unavailableReason = error.unavailableReason;
  res.status(error.status).set(error.headers).json(body);
}
