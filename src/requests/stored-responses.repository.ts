import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { STORED_RESPONSE_TTL_HOURS, type StoredAnswer } from './stored-answer';
import {
  DELETE_EXPIRED_STORED_RESPONSES,
  STORED_RESPONSE_BY_CLIENT_REQUEST_ID,
  STORED_RESPONSE_BY_REQUEST_ID,
  type StoredRow,
} from './stored-responses.statements';

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
 * Stored answers (stored-responses.statements.ts): ages on the database clock (`now()`), shared by
 * every instance, and the body read as its JSON text, exactly as it was sent (the column is
 * `json`: key order and escapes kept).
 */
@Injectable()
export class StoredResponsesRepository {
  constructor(private readonly database: Database) {}

  /** The answer, if this organization's request stored one less than 24 hours ago (expired rows may await the sweep). */
  async find(organizationId: string, requestId: string): Promise<StoredAnswer | null> {
    if (!UUID.test(requestId)) return null;
    const rows = await this.database.run(STORED_RESPONSE_BY_REQUEST_ID, [requestId.toLowerCase(), organizationId, STORED_RESPONSE_TTL_HOURS]);
    return rows.length === 0 ? null : storedAnswer(rows[0]);
  }

  /**
   * The most recent unexpired answer stored under this organization's client request id (several
   * POSTs may share one; STORED_RESPONSE_BY_CLIENT_REQUEST_ID).
   */
  async findByClientRequestId(organizationId: string, clientRequestId: string): Promise<StoredAnswer | null> {
    const rows = await this.database.run(STORED_RESPONSE_BY_CLIENT_REQUEST_ID, [organizationId, clientRequestId, STORED_RESPONSE_TTL_HOURS]);
    return rows.length === 0 ? null : storedAnswer(rows[0]);
  }

  /** Deletes the answers past their 24 hours; returns how many. */
  async deleteExpired(): Promise<number> {
    const [row] = await this.database.run(DELETE_EXPIRED_STORED_RESPONSES, [STORED_RESPONSE_TTL_HOURS]);
    return row.deleted;
  }
}
