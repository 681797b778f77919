import { defineStatement } from '../database/statements';

/** The key's row by its SHA-256 hash ($1): runs before every authenticated request. */
export const FIND_API_KEY_BY_HASH = defineStatement<{
  id: string;
  organizationId: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  scope: string;
}>({
  name: 'api-keys.find-by-hash',
  text: `SELECT id, organization_id AS "organizationId", expires_at AS "expiresAt", revoked_at AS "revokedAt",
                  scope::text AS scope
             FROM api_keys WHERE key_hash = $1`,
  columns: ['id', 'organizationId', 'expiresAt', 'revokedAt', 'scope'],
  sample: () => ['0'.repeat(64)],
});

export const AUTH_STATEMENTS = [FIND_API_KEY_BY_HASH];
