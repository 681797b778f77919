import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { IS_PUBLIC } from '../common/public.decorator';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError } from '../errors/request-error';
import type { AuthenticatedRequest } from './authenticated-request';
import { type Scope, scopeAllows } from './scope-names';
import { REQUIRED_SCOPE } from './scopes';

/**
 * Key scopes (docs/api.md, "Key scopes"). A global guard registered right after the organization's
 * limit, so a refused request counts toward it, and before the body is read (ReadBodyGuard).
 * Deny by default: a non-public route that declares no scope is refused to every key (a test
 * enumerates the routes so that none ships that way).
 */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const needed = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, targets);
    const caller = context.switchToHttp().getRequest<Request>() as Partial<AuthenticatedRequest>;
    const held = caller.caller?.scope;
    if (needed === undefined || held === undefined || !scopeAllows(held, needed)) {
      throw new RequestError(
        RequestErrorCode.INSUFFICIENT_SCOPE,
        needed === undefined ? 'This route is not open to API keys' : `This API key lacks the ${needed} scope`,
      );
    }
    return true;
  }
}
