import { Inject, Injectable, Logger } from '@nestjs/common';
import { normalizeIp } from '@nestjs/throttler';
import type { NextFunction, Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { RequestError } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { sendRequestError } from '../errors/send-request-error';
import { MetricsService } from '../metrics/metrics.service';
import { logAnswerBeforeRequestLogger } from '../logging/answer-line';
import { rateLimitMessage } from './rate-limit-headers';
import { RATE_LIMIT_STORE, type RateLimitStore } from './sliding-window';

/**
 * Decided: the operations endpoints are not counted per IP. Orchestrators and Prometheus poll them
 * from a few addresses (often the same proxy address as real traffic); a 429 on a liveness probe
 * would get a healthy instance restarted, and these routes take no key and no body, so they add
 * nothing to key guessing. The API docs are counted like any other route.
 */
const EXEMPT_PATHS = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * Per-IP limit (docs/api.md#rate-limits), the first check after the request id and before routing and
 * authentication, so key guessing is throttled. The client address is `req.ip`: express applies
 * TRUST_PROXY ('trust proxy') to decide whether X-Forwarded-For is believed. IPv6 clients are
 * counted per /64, as one host usually holds a whole /64.
 */
@Injectable()
export class IpRateLimitMiddleware {
  private readonly logger = new Logger('RateLimit');

  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  /** Express middleware (bound: passed to app.use as is). */
  readonly handle = (req: Request, res: Response, next: NextFunction): void => {
    if (EXEMPT_PATHS.has(req.path)) return next();
    this.decide(req, res).then(
      (accepted) => (accepted ? next() : undefined),
      (error: unknown) => {
        // The stores never throw by design; if one did, serving beats refusing everyone.
        this.logger.error({ err: error }, 'Per-IP rate limit failed; request let through');
        next();
      },
    );
  };

  private async decide(req: Request, res: Response): Promise<boolean> {
    const ip = normalizeIp(req.ip ?? req.socket.remoteAddress ?? 'unknown');
    const record = await this.store.increment(`ip:${ip}`, this.config.RATE_WINDOW_SECONDS * 1000, this.config.IP_RATE_LIMIT, 0, 'ip');
    if (!record.isBlocked) return true;
    this.metrics.rateLimitRefused('ip');
    const refusal = new RequestError(RequestErrorCode.RATE_LIMIT_EXCEEDED, rateLimitMessage(record.timeToBlockExpire), {
      'Retry-After': String(record.timeToBlockExpire),
    });
    sendRequestError(req, res, refusal);
    // Every answer has one log line with its status (docs/reliability.md, section 7). The request
    // logger (pino-http, Nest's middleware) runs after every app.use middleware, so this answer,
    // written before it, gets its line here: with the request's id, masked path and trace fields.
    logAnswerBeforeRequestLogger(req, 429, 'request refused before routing', { reason: 'ip_rate_limit' });
    return false;
  }
}
