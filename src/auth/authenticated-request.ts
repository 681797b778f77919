import type { Request } from 'express';

/** Who is calling, set by the ApiKeyGuard on every non-public route. */
export interface CallerIdentity {
  organizationId: string;
  apiKeyId: string;
}

export type AuthenticatedRequest = Request & { caller: CallerIdentity };
