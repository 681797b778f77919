import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { Prisma } from '../generated/prisma/client';
import { STORED_RESPONSE_TTL_HOURS, type StoredAnswer } from './stored-answer';

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

/** The columns of a StoredRow. */
const STORED_ROW = Prisma.sql`request_id, client_request_id, status, body::text AS body`;

/** The oldest creation time still served, on the database clock: before it an answer has expired. */
const EXPIRY = Prisma.sql`now() - make_interval(hours => ${STORED_RESPONSE_TTL_HOURS}::int)`;

/**
 * Stored answers, through Prisma Client. Raw SQL (`$queryRaw`) because ages use the database clock
 * (`now()`), shared by every instance, and the body is read as its JSON text, exactly as it was
 * sent (the column is `json`: key order and escapes kept).
 */
@Injectable()
export class StoredResponsesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The answer, if this organization's request stored one less than 24 hours ago (expired rows may await the sweep). */
  async find(organizationId: string, requestId: string): Promise<StoredAnswer | null> {
    if (!UUID.test(requestId)) return null;
    const rows = await this.prisma.$queryRaw<StoredRow[]>`
      SELECT ${STORED_ROW} FROM stored_responses
      WHERE request_id = ${requestId.toLowerCase()} AND organization_id = ${organizationId} AND created_at > ${EXPIRY}`;
    return rows.length === 0 ? null : storedAnswer(rows[0]);
  }

  /**
   * The most recent unexpired answer stored under this organization's client request id (several
   * POSTs may share one). Served by the (organization_id, client_request_id, created_at DESC) index.
   * Ties (one millisecond) go to the larger request id, so the choice is at least stable.
   */
  async findByClientRequestId(organizationId: string, clientRequestId: string): Promise<StoredAnswer | null> {
    const rows = await this.prisma.$queryRaw<StoredRow[]>`
      SELECT ${STORED_ROW} FROM stored_responses
      WHERE organization_id = ${organizationId} AND client_request_id = ${clientRequestId} AND created_at > ${EXPIRY}
      ORDER BY created_at DESC, request_id DESC
      LIMIT 1`;
    return rows.length === 0 ? null : storedAnswer(rows[0]);
  }

  /** Deletes the answers past their 24 hours; returns how many. */
  async deleteExpired(): Promise<number> {
    return this.prisma.$executeRaw`DELETE FROM stored_responses WHERE created_at <= ${EXPIRY}`;
  }
}
