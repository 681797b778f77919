import type { Request, Response } from 'express';
import { requestIdOf } from '../common/request-id';
import type { RequestError } from './request-error';
import type { RequestErrorBody } from './error-body';

/**
 * Writes a request-level error in the contract's one body shape. Used by the global filter and by
 * the per-IP middleware (which answers before Nest's routing, where no filter runs).
 */
export function sendRequestError(req: Request, res: Response, error: RequestError): void {
  const body: RequestErrorBody = { request_id: requestIdOf(req), error: { code: error.code, message: error.message } };
  // Refused before its body was read (401, 429, 413, media type...): close the connection after
  // the answer, so Node does not read (drain) the rest of the body to keep the connection alive.
  if (!req.complete) res.setHeader('Connection', 'close');
  res.status(error.status).set(error.headers).json(body);
}
