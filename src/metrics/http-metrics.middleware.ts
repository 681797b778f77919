import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MetricsService } from './metrics.service';
import { methodLabel, routeLabel } from './route-label';

/**
 * Records every answered request in http_requests_total and http_request_duration_seconds, and
 * each 503 by its reason in service_unavailable_total.
 * Registered right after the request-id middleware, so responses written by later middleware
 * (per-IP 429), guards (401), filters (4xx/500) and Nest's 404 handler are all counted. Labels are
 * read on 'finish', when Express has set `req.route` for a matched route.
 */
export function httpMetricsMiddleware(metrics: MetricsService): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.httpRequestFinished(methodLabel(req), routeLabel(req), res.statusCode, seconds);
      // Set by sendRequestError from the RequestError (docs/api.md "Errors", 503 reasons).
      const reason = (res.locals as { unavailableReason?: string }).unavailableReason;
      if (res.statusCode === 503 && reason) metrics.serviceUnavailableAnswered(reason);
    });
    next();
  };
}
