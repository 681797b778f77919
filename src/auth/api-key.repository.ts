import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { hashApiKey } from './api-key';
import type { CallerIdentity } from './authenticated-request';

/** How often at most `lastUsedAt` is written for one key: it is for humans, not an audit log. */
const LAST_USED_RESOLUTION_MS = 60_000;

@Injectable()
export class ApiKeyRepository {
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(private readonly prisma: PrismaService) {}

  /** The key's organization if the key exists, has not expired and is not revoked. */
  async findActive(key: string, now: Date): Promise<CallerIdentity | undefined> {
    const row = await this.prisma.apiKey.findUnique({
      where: { keyHash: hashApiKey(key) },
      select: { id: true, organizationId: true, expiresAt: true, revokedAt: true },
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
    this.prisma.apiKey.update({ where: { id }, data: { lastUsedAt: now } }).catch(() => undefined);
  }
}
