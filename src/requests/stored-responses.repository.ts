import { Injectable } from '@nestjs/common';
import type { DatabaseClient } from '../custom-fields/custom-fields.repository';
import { PrismaService } from '../database/prisma.service';
import type { Prisma } from '../generated/prisma/client';

/** How long an answer can be read back (contract section 11, "Lost responses"). */
export const STORED_RESPONSE_TTL_MS = 24 * 60 * 60 * 1000;

/** An answer as sent: HTTP status and body. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export interface StoredAnswer extends Answer {
  request_id: string;
}

/** Server request ids are UUIDs; anything else cannot name a stored answer. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class StoredResponsesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Called with the contacts pipeline's transaction, so the answer exists exactly when its writes do. */
  async store(tx: DatabaseClient, organizationId: string, requestId: string, answer: Answer): Promise<void> {
    await tx.storedResponse.create({
      data: { requestId, organizationId, status: answer.status, body: answer.body as Prisma.InputJsonObject },
    });
  }

  /** The answer, if this organization's request stored one less than 24 hours ago (expired rows may await the sweep). */
  async find(organizationId: string, requestId: string, now = new Date()): Promise<StoredAnswer | null> {
    if (!UUID.test(requestId)) return null;
    const row = await this.prisma.storedResponse.findFirst({
      where: {
        requestId: requestId.toLowerCase(),
        organizationId,
        createdAt: { gt: new Date(now.getTime() - STORED_RESPONSE_TTL_MS) },
      },
      select: { requestId: true, status: true, body: true },
    });
    if (!row) return null;
    return { request_id: row.requestId, status: row.status, body: row.body as Record<string, unknown> };
  }

  /** Deletes the answers past their 24 hours; returns how many. */
  async deleteExpired(now = new Date()): Promise<number> {
    const { count } = await this.prisma.storedResponse.deleteMany({
      where: { createdAt: { lte: new Date(now.getTime() - STORED_RESPONSE_TTL_MS) } },
    });
    return count;
  }
}
