import { CanActivate, Injectable, type ExecutionContext } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { invalidRequest } from '../errors/request-error';

type FlaggedRequest = IncomingMessage & { unmetExpectation?: boolean };

/**
 * Node answers an `Expect:` other than `100-continue` with its own bare 417 (no X-Request-Id, no
 * body, before authentication). app.factory instead flags the request and hands it to Express;
 * this guard refuses it as 400 INVALID_REQUEST in its place in the order of checks (after the key
 * and the organization limit, like the other header checks). See docs/decisions.md.
 */
export function flagUnmetExpectation(req: IncomingMessage): void {
  (req as FlaggedRequest).unmetExpectation = true;
}

@Injectable()
export class UnmetExpectationGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.switchToHttp().getRequest<FlaggedRequest>().unmetExpectation) {
      throw invalidRequest('Unsupported Expect header: only 100-continue is supported');
    }
    return true;
  }
}
