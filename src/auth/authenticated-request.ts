import type { Request } from 'express';
import type { Scope } from './scope-names';

/** Who is calling, set by the ApiKeyGuard on every non-public route. */
export interface CallerIdentity {
  organizationId: string;
  apiKeyId: string;
  /** What the key may do (docs/api.md, "Key scopes"). */
  scope: Scope;
}

export type AuthenticatedRequest = Request & { caller: CallerIdentity };
