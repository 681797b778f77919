import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { PrismaService } from '../database/prisma.service';
import { hashApiKey } from './api-key';
import { FIND_API_KEY_BY_HASH } from './auth.statements';
import type { CallerIdentity } from './authenticated-request';
import { isScope } from './scope-names';

/** How often at most `lastUsedAt` is written for one key: it is for humans, not an audit log. */
const LAST_USED_RESOLUTION_MS = 60_000;

@Injectable()
export class ApiKeyRepository {
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(
    private readonly database: Database,
    private readonly prisma: PrismaService,
  ) {}

  /** The key's organization if the key exists, has not expired and is not revoked. */
  async findActive(key: string, now: Date): Promise<CallerIdentity | undefined> {
    // On the pg pool directly: this runs before every authenticated request.
    const [row] = await this.database.run(FIND_API_KEY_BY_HASH, [hashApiKey(key)]);
    if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return undefined;
    this.touch(row.id, now);
    // The database's enum holds only known scopes; anything else would be a schema drift: no access.
    if (!isScope(row.scope)) return undefined;
    return { organizationId: row.organizationId, apiKeyId: row.id, scope: row.scope };
  }

  private touch(id: string, now: Date): void {
    const last = this.lastUsedWrites.get(id) ?? 0;
    if (now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    this.lastUsedWrites.set(id, now.getTime());
    // Off the request path; a failure here (a key deleted meanwhile) must not fail the request.
    // update, not updateMany: Prisma Client runs updateMany in a transaction of its own.
    this.prisma.apiKey.update({ where: { id }, data: { lastUsedAt: now }, select: { id: true } }).catch(() => undefined);
  }
}
