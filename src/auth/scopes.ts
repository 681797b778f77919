import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { ApiRequestError } from '../docs/openapi.decorators';
import type { Scope } from './scope-names';

export const REQUIRED_SCOPE = 'requiredScope';

/**
 * The scope a route needs; checked after the organization's limit, before the body is read
 * (ScopeGuard). Also documents the route's 403 and its scope (`x-required-scope`) in OpenAPI.
 */
export const RequireScope = (scope: Scope) =>
  applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    ApiExtension('x-required-scope', scope),
    ApiRequestError(403, `INSUFFICIENT_SCOPE: the API key lacks the \`${scope}\` scope (admin ⊃ contacts:write ⊃ contacts:read)`),
  );
