import { type CanActivate, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { invalidRequest } from '../errors/request-error';

/** `?dryRun=true|false`; absent is false, anything else (a repeated parameter too) is a request error. */
export function parseDryRun(value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalidRequest('dryRun must be true or false');
}

/** On a route handler: it offers `?dryRun` (the two contact POSTs). */
export const OffersDryRun = Reflector.createDecorator<true>({ transform: () => true });

/** `@Query('dryRun', DryRunPipe)`: the value for the handler (DryRunOnlyWhereOffered has refused a bad one already). */
@Injectable()
export class DryRunPipe implements PipeTransform<unknown, boolean> {
  transform(value: unknown): boolean {
    return parseDryRun(value);
  }
}

/**
 * A global guard, after the scope check and so before any body is read: on a route that offers a
 * dry run (`@OffersDryRun()`), a `?dryRun` other than true/false is 400 INVALID_REQUEST (a guard,
 * so it comes before the body's shape: pipes of different parameters run concurrently, so a pipe
 * alone could not promise that). On a write route that offers none, any `?dryRun` is 400: other
 * unknown query parameters are ignored, but a caller who asks to erase or delete "as a dry run"
 * must not have it done for real. Reads are left alone (nothing to do for real).
 */
@Injectable()
export class DryRunOnlyWhereOffered implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    // The common case decided on the raw URL: no query parsing, no metadata lookup. A query with a
    // percent-encoded character is parsed: `dry%52un=true` is `dryRun=true` to the query parser
    // (a dry run on the contact POSTs), so it must not slip past here.
    if (req.method === 'GET' || req.method === 'HEAD' || !mayNameDryRun(req.url)) return true;
    if (req.query.dryRun === undefined) return true;
    if (this.reflector.get(OffersDryRun, context.getHandler())) {
      parseDryRun(req.query.dryRun);
      return true;
    }
    throw invalidRequest('dryRun is offered only by POST /api/v2/contacts and POST /api/v2/contacts/batch: nothing was done');
  }
}

/** Whether the query of `url` may hold a parameter that parses as `dryRun`: named so, or percent-encoded. */
function mayNameDryRun(url: string): boolean {
  const query = url.indexOf('?');
  return query !== -1 && (url.includes('dryRun', query) || url.includes('%', query));
}
