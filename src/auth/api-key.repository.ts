import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { hashApiKey } from './api-key';
import type { CallerIdentity } from './authenticated-request';

/** How often at most `lastUsedAt` is written for one key: it is for humans, not an audit log. */
const LAST_USED_RESOLUTION_MS = 60_000;

@Injectable()
export class ApiKeyRepository {
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(private readonly database: Database) {}

  /** The key's organization if the key exists, has not expired and is not revoked. */
  async findActive(key: string, now: Date): Promise<CallerIdentity | undefined> {
    // On the pg pool directly: this runs before every authenticated request.
    const [row] = await this.database.query<{ id: string; organizationId: string; expiresAt: Date | null; revokedAt: Date | null }>({
      name: 'api-keys.find-by-hash',
      text: `SELECT id, organization_id AS "organizationId", expires_at AS "expiresAt", revoked_at AS "revokedAt"
             FROM api_keys WHERE key_hash = $1`,
      values: [hashApiKey(key)],
    });
    if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return undefined;
    this.touch(row.id, now);
    return { organizationId: row.organizationId, apiKeyId: row.id };
  }

  private touch(id: string, now: Date): void {
    const last = this.lastUsedWrites.get(id) ?? 0;
    if (now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    this.lastUsedWrites.set(id, now.getTime());
    // Off the request path; a failure here must not fail the request.
    this.database.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [id, now]).catch(() => undefined);
  }
}
