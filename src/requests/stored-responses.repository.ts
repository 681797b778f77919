import { Injectable } from '@nestjs/common';
import { type DatabaseClient, PrismaService } from '../database/prisma.service';

/** How long an answer can be read back (contract section 11, "Lost responses"). */
export const STORED_RESPONSE_TTL_HOURS = 24;

/** An answer as sent: HTTP status and body. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export interface StoredAnswer extends Answer {
  request_id: string;
  /** Present when the POST sent X-Client-Request-Id; absent (not null) when it sent none. */
  client_request_id?: string;
}

interface StoredRow {
  request_id: string;
  client_request_id: string | null;
  status: number;
  body: string;
}

/** Key order as answered: request_id, client_request_id (when there is one), status, body. */
function storedAnswer(row: StoredRow): StoredAnswer {
  return {
    request_id: row.request_id,
    ...(row.client_request_id === null ? {} : { client_request_id: row.client_request_id }),
    status: row.status,
    body: JSON.parse(row.body) as Record<string, unknown>,
  };
}

/** Server request ids are UUIDs; anything else cannot name a stored answer. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The body travels as its JSON text (what Express sends), not as a Prisma Json value: answers can
 * echo input holding U+0000 or lone surrogates, which Prisma's query protocol refuses in a Json
 * value but which JSON.stringify escapes into plain ASCII. Ages use the database clock, shared by
 * every instance.
 */
@Injectable()
export class StoredResponsesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Called with the contacts pipeline's transaction, so the answer exists exactly when its writes do. */
  async store(
    tx: DatabaseClient,
    organizationId: string,
    requestId: string,
    answer: Answer,
    clientRequestId: string | null = null,
  ): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO stored_responses (request_id, organization_id, status, body, client_request_id)
      VALUES (${requestId}, ${organizationId}, ${answer.status}, ${JSON.stringify(answer.body)}::json, ${clientRequestId})`;
  }

  /** The answer, if this organization's request stored one less than 24 hours ago (expired rows may await the sweep). */
  async find(organizationId: string, requestId: string): Promise<StoredAnswer | null> {
    if (!UUID.test(requestId)) return null;
    const rows = await this.prisma.$queryRaw<StoredRow[]>`
      SELECT request_id, client_request_id, status, body::text AS body FROM stored_responses
      WHERE request_id = ${requestId.toLowerCase()} AND organization_id = ${organizationId}
        AND created_at > now() - make_interval(hours => ${STORED_RESPONSE_TTL_HOURS})`;
    return rows.length === 0 ? null : storedAnswer(rows[0]);
  }

  /**
   * The most recent unexpired answer stored under this organization's client request id (several
   * POSTs may share one). Served by the (organization_id, client_request_id, created_at DESC) index.
   * Ties (one millisecond) go to the larger request id, so the choice is at least stable.
   */
  async findByClientRequestId(organizationId: string, clientRequestId: string): Promise<StoredAnswer | null> {
    const rows = await this.prisma.$queryRaw<StoredRow[]>`
      SELECT request_id, client_request_id, status, body::text AS body FROM stored_responses
      WHERE organization_id = ${organizationId} AND client_request_id = ${clientRequestId}
        AND created_at > now() - make_interval(hours => ${STORED_RESPONSE_TTL_HOURS})
      ORDER BY created_at DESC, request_id DESC
      LIMIT 1`;
    return rows.length === 0 ? null : storedAnswer(rows[0]);
  }

  /** Deletes the answers past their 24 hours; returns how many. */
  deleteExpired(): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM stored_responses WHERE created_at <= now() - make_interval(hours => ${STORED_RESPONSE_TTL_HOURS})`;
  }
}
