import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, type PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { invalidRequest } from '../errors/request-error';

/** `?dryRun=true|false`; absent is false, anything else (a repeated parameter too) is a request error. */
export function parseDryRun(value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalidRequest('dryRun must be true or false');
}

/** `@Query('dryRun', DryRunPipe)`: the value for the handler (DryRunCheck has refused a bad one already). */
@Injectable()
export class DryRunPipe implements PipeTransform<unknown, boolean> {
  transform(value: unknown): boolean {
    return parseDryRun(value);
  }
}

/**
 * Refuses a bad `?dryRun` before the body's shape (decisions: ?dryRun), after the body is read
 * (`@JsonBody()` goes below the route's `@UseInterceptors(DryRunCheck)`: it runs first) and before any pipe. Pipes of
 * different parameters run concurrently, so a pipe alone cannot promise this order.
 */
@Injectable()
export class DryRunCheck implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    parseDryRun(context.switchToHttp().getRequest<Request>().query.dryRun);
    return next.handle();
  }
}
