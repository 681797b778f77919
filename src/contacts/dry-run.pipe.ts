import { type CanActivate, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants';
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

/**
 * A global guard: `?dryRun` on a write route that offers no dry run (every one but the two contact
 * POSTs, which name DryRunCheck) is 400 INVALID_REQUEST. Other unknown query parameters are
 * ignored, but a caller who asks to erase or delete "as a dry run" must not have it done for real
 * (docs/api.md, "Dry run"). Reads are left alone (nothing to do for real). Runs after the scope
 * check, before any body is read.
 */
@Injectable()
export class DryRunOnlyWhereOffered implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    // The common case decided on the raw URL: no query parsing, no metadata lookup. A query with a
    // percent-encoded character is parsed: `dry%52un=true` is `dryRun=true` to the query parser
    // (a dry run on the contact POSTs), so it must not slip past here (probe10).
    if (req.method === 'GET' || req.method === 'HEAD' || !mayNameDryRun(req.url)) return true;
    if (req.query.dryRun === undefined) return true;
    const guards = (Reflect.getMetadata(GUARDS_METADATA, context.getHandler()) as unknown[] | undefined) ?? [];
    if (guards.includes(DryRunCheck)) return true;
    throw invalidRequest('dryRun is offered only by POST /api/v2/contacts and POST /api/v2/contacts/batch: nothing was done');
  }
}

/** Whether the query of `url` may hold a parameter that parses as `dryRun`: named so, or percent-encoded. */
function mayNameDryRun(url: string): boolean {
  const query = url.indexOf('?');
  return query !== -1 && (url.includes('dryRun', query) || url.includes('%', query));
}
