import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { IS_PUBLIC } from '../common/public.decorator';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { RequestError } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { MetricsService } from '../metrics/metrics.service';
import { rateLimitMessage, setOrgRateLimitHeaders } from './rate-limit-headers';
import { RATE_LIMIT_STORE, type RateLimitStore } from './sliding-window';

/**
 * Per-organization limit (docs/api.md#rate-limits): one budget of ORG_RATE_LIMIT accepted requests in
 * any RATE_WINDOW_SECONDS, shared by all keys of the organization and all instances. Registered as
 * a global guard right after the ApiKeyGuard, so it knows the caller and runs before the body is
 * read (ReadBodyGuard). Every request that passes this guard counts, whatever its outcome.
 */
@Injectable()
export class OrgRateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const caller = (req as Partial<AuthenticatedRequest>).caller;
    if (!caller) return true; // unreachable: the ApiKeyGuard refuses non-public requests without a caller

    const limit = this.config.ORG_RATE_LIMIT;
    const windowSeconds = this.config.RATE_WINDOW_SECONDS;
    const record = await this.store.increment(`org:${caller.organizationId}`, windowSeconds * 1000, limit, 0, 'org');
    const res = http.getResponse<Response>();
    setOrgRateLimitHeaders(res, record, limit, windowSeconds);
    if (record.isBlocked) {
      this.metrics.rateLimitRefused('org');
      throw new RequestError(RequestErrorCode.RATE_LIMIT_EXCEEDED, rateLimitMessage(record.timeToBlockExpire), {
        'Retry-After': String(record.timeToBlockExpire),
      });
    }
    return true;
  }
}
