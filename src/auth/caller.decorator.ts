import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { AuthenticatedRequest, CallerIdentity } from './authenticated-request';

/** The caller identified by the API key: `@Caller() caller: CallerIdentity`. */
export const Caller = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): CallerIdentity => ctx.switchToHttp().getRequest<AuthenticatedRequest>().caller,
);
