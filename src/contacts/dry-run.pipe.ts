import { type CanActivate, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import { invalidRequest } from '../errors/request-error';
import { ChecksAfterBody } from '../http-body/json-body.guard';

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
 * (`@ChecksAfterBody()`: it goes after JsonBodyGuard in the route's guards) and before any pipe.
 * Pipes of different parameters run concurrently, so a pipe alone cannot promise this order. A
 * guard, not an interceptor: the route then has no interceptor chain to run.
 */
@Injectable()
@ChecksAfterBody()
export class DryRunCheck implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    parseDryRun(context.switchToHttp().getRequest<Request>().query.dryRun);
    return true;
  }
}
