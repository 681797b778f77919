import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { IS_PUBLIC } from '../common/public.decorator';
import { RequestError } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { ApiKeyRepository } from './api-key.repository';
import type { AuthenticatedRequest } from './authenticated-request';

/** One message for every failure, so the answer never tells which check failed. */
const INVALID_KEY = () =>
  new RequestError(RequestErrorCode.INVALID_API_KEY, 'A valid API key is required', {
    'WWW-Authenticate': 'Bearer',
  });

/**
 * Deny by default: every route needs a key unless marked @Public(). The key comes from
 * `Authorization: Bearer <key>` or `X-API-Key: <key>` (both sent and different: refused).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeyRepository,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;

    const req = context.switchToHttp().getRequest<Request>();
    const key = presentedKey(req);
    if (!key) throw INVALID_KEY();
    const caller = await this.apiKeys.findActive(key, new Date());
    if (!caller) throw INVALID_KEY();
    (req as AuthenticatedRequest).caller = caller;
    return true;
  }
}

/** How many times a header was sent: Node keeps only the first Authorization and joins X-API-Key. */
function occurrences(req: Request, name: string): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === name) count++;
  return count;
}

function presentedKey(req: Request): string | undefined {
  // Exactly one of each: two headers (even equal) are ambiguous about who is calling.
  if (occurrences(req, 'authorization') > 1 || occurrences(req, 'x-api-key') > 1) return undefined;
  const authorization = req.headers.authorization;
  const bearer = authorization?.match(/^Bearer[ ]+(\S+)\s*$/i)?.[1];
  const headerKey = req.headers['x-api-key'];
  const xApiKey = typeof headerKey === 'string' ? headerKey.trim() : undefined;
  if (authorization !== undefined && !bearer) return undefined; // malformed Authorization header
  if (bearer && xApiKey && bearer !== xApiKey) return undefined;
  return bearer || xApiKey || undefined;
}
