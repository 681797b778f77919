import { Injectable } from '@nestjs/common';
import { Database, type SqlClient } from '../database/database';
import { SqlParams } from '../database/sql-params';

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
 * The INSERT of one stored answer, with its values bound in `p`: used alone by `store` and as a
 * CTE of the contacts write statement (one round trip for the contacts and their answer). The body
 * travels as its JSON text (what Express sends): answers can echo input holding U+0000 or lone
 * surrogates, which JSON.stringify escapes into plain ASCII.
 */
export function storedResponseInsert(
  p: SqlParams,
  organizationId: string,
  requestId: string,
  answer: Answer,
  clientRequestId: string | null = null,
): string {
  return `INSERT INTO stored_responses (request_id, organization_id, status, body, client_request_id)
      VALUES (${p.add(requestId)}, ${p.add(organizationId)}, ${p.add(answer.status)}::int, ${p.add(JSON.stringify(answer.body))}::json,
              ${p.add(clientRequestId)}::text)`;
}

/** Stored answers, on the pg pool directly (database.ts). Ages use the database clock, shared by every instance. */
@Injectable()
export class StoredResponsesRepository {
  constructor(private readonly database: Database) {}

  /** Called with the contacts pipeline's transaction, so the answer exists exactly when its writes do. */
  async store(
    tx: SqlClient,
    organizationId: string,
    requestId: string,
    answer: Answer,
    clientRequestId: string | null = null,
  ): Promise<void> {
    const p = new SqlParams();
    await tx.query(storedResponseInsert(p, organizationId, requestId, answer, clientRequestId), p.values);
  }

  /** The answer, if this organization's request stored one less than 24 hours ago (expired rows may await the sweep). */
  async find(organizationId: string, requestId: string): Promise<StoredAnswer | null> {
    if (!UUID.test(requestId)) return null;
    const rows = await this.database.query<StoredRow>(
      `SELECT request_id, client_request_id, status, body::text AS body FROM stored_responses
       WHERE request_id = $1 AND organization_id = $2
         AND created_at > now() - make_interval(hours => $3)`,
      [requestId.toLowerCase(), organizationId, STORED_RESPONSE_TTL_HOURS],
    );
    return rows.length === 0 ? null : storedAnswer(rows[0]);
  }

  /**
   * The most recent unexpired answer stored under this organization's client request id (several
   * POSTs may share one). Served by the (organization_id, client_request_id, created_at DESC) index.
   * Ties (one millisecond) go to the larger request id, so the choice is at least stable.
   */
  async findByClientRequestId(organizationId: string, clientRequestId: string): Promise<StoredAnswer | null> {
    const rows = await this.database.query<StoredRow>(
      `SELECT request_id, client_request_id, status, body::text AS body FROM stored_responses
       WHERE organization_id = $1 AND client_request_id = $2
         AND created_at > now() - make_interval(hours => $3)
       ORDER BY created_at DESC, request_id DESC
       LIMIT 1`,
      [organizationId, clientRequestId, STORED_RESPONSE_TTL_HOURS],
    );
    return rows.length === 0 ? null : storedAnswer(rows[0]);
  }

  /** Deletes the answers past their 24 hours; returns how many. */
  async deleteExpired(): Promise<number> {
    const rows = await this.database.query<{ deleted: number }>(
      `WITH gone AS (DELETE FROM stored_responses WHERE created_at <= now() - make_interval(hours => $1) RETURNING 1)
       SELECT count(*)::int AS deleted FROM gone`,
      [STORED_RESPONSE_TTL_HOURS],
    );
    return rows[0].deleted;
  }
}
