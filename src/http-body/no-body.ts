import { createParamDecorator, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import { invalidRequest } from '../errors/request-error';

/** Refuses any body but none, an empty one or a JSON `{}`. */
@Injectable()
export class NoBodyPipe implements PipeTransform<unknown, undefined> {
  transform(body: unknown): undefined {
    const empty = body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
    if (!empty) throw invalidRequest('This endpoint takes no body: send none, an empty body or {}');
    return undefined;
  }
}

const sentBody = createParamDecorator((_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<Request>().body);

/**
 * On the parameter list of a POST that acts without input (erase, rotate-secret): no body, an
 * empty body or a JSON `{}` is accepted (what is sent follows the usual body rules: size, media
 * type, encoding, UTF-8, JSON); anything else is 400 INVALID_REQUEST. Not `@Body()`, so the
 * OpenAPI document shows no request body for the route.
 */
export const NoBody = (): ParameterDecorator => sentBody(NoBodyPipe);
