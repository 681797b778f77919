import type { Request, Response } from 'express';
import { requestIdOf } from '../common/request-id';
import { endAfterUpload } from '../common/lingering-close';
import type { RequestError } from './request-error';
import type { RequestErrorBody } from './error-body';

/**
 * Writes a request-level error in the contract's one body shape. Used by the global filter and by
 * the per-IP middleware (which answers before Nest's routing, where no filter runs).
 */
export function sendRequestError(req: Request, res: Response, error: RequestError): void {
  const body: RequestErrorBody = { request_id: requestIdOf(req), error: { code: error.code, message: error.message } };
  if (error.unavailableReason) res.locals.unavailableReason = error.unavailableReason;
  if (req.complete) {
    res.status(error.status).set(error.headers).json(body);
    return;
  }
  // Refused before its body was read (401, 429, 413, media type...): the connection is closed
  // after the answer, so Node does not read (drain) the rest of the body to keep the connection
  // alive. The rest of an upload still arriving is first drained for a bounded time (lingering
  // close), so that the client reads this answer instead of a reset. A body that stopped arriving
  // (408, shutdown) is not waited for again.
  res.status(error.status).set(error.headers).setHeader('Connection', 'close');
  if (error.bodyAbandoned) {
    res.json(body);
    return;
  }
  const json = JSON.stringify(body);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.write(json);
  endAfterUpload(req, res);
}
