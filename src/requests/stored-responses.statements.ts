import { randomUUID } from 'node:crypto';
import { SqlParams } from '../database/sql-params';
import { defineStatement } from '../database/statements';

/**
 * Stores the answer of organization $1 for request $2 ($3 HTTP status, $4 the body as its JSON
 * text, $5 the X-Client-Request-Id, $6 the addresses it holds: emailsHeldBy in store-answer.ts), in the transaction
 * of the request's writes (`storeAnswer`, store-answer.ts). The body travels as the JSON text that
 * Express sends: answers can echo input holding U+0000 or lone surrogates, which JSON.stringify
 * escapes into plain ASCII (jsonb would refuse U+0000: the column is `json`).
 */
export const STORE_ANSWER = defineStatement<Record<string, never>>({
  name: 'requests.store-answer',
  text: storeAnswerText(),
  columns: [],
  // A fresh request id each time (concurrent warm-ups never wait on each other's row); the sample
  // runs only inside a rolled-back transaction.
  sample: (organizationId) => [organizationId, randomUUID(), 200, '{}', null, []],
});

function storeAnswerText(): string {
  const p = new SqlParams();
  return storeAnswerPart(p, p.add('organization'));
}

/**
 * The stored answer's part of a statement that writes for several modules in one round trip (the
 * contacts write): STORE_ANSWER's INSERT, its placeholders numbered by `p` after the caller's,
 * `organization` the caller's placeholder; its values are `storeAnswerValues` (store-answer.ts).
 */
export function storeAnswerPart(p: SqlParams, organization: string): string {
  const [requestId, status, body, clientRequestId, emails] = ['request_id', 'status', 'body', 'client_request_id', 'emails'].map((name) => p.add(name));
  return `INSERT INTO stored_responses (request_id, organization_id, status, body, client_request_id, emails)
    VALUES (${requestId}, ${organization}, ${status}::int, ${body}::json, ${clientRequestId}::text, ${emails}::text[])`;
}

/** A stored answer as read: the body as its JSON text, exactly as it was sent. */
export interface StoredRow {
  request_id: string;
  client_request_id: string | null;
  status: number;
  body: string;
}

/**
 * The answer stored by request $1 of organization $2 less than the stored answers' lifetime ($3
 * hours, on the database clock shared by every instance) ago; expired rows may await the sweep.
 */
export const STORED_RESPONSE_BY_REQUEST_ID = defineStatement<StoredRow>({
  name: 'requests.stored-by-request-id',
  text: `SELECT request_id, client_request_id, status, body::text AS body FROM stored_responses
      WHERE request_id = $1 AND organization_id = $2 AND created_at > now() - make_interval(hours => $3::int)`,
  columns: ['request_id', 'client_request_id', 'status', 'body'],
  sample: (organizationId) => ['', organizationId, 24],
});

/**
 * The most recent unexpired answer stored under organization $1's client request id $2 (several
 * POSTs may share one), served by the (organization_id, client_request_id, created_at DESC) index.
 * Ties (one millisecond) go to the larger request id, so the choice is at least stable.
 */
export const STORED_RESPONSE_BY_CLIENT_REQUEST_ID = defineStatement<StoredRow>({
  name: 'requests.stored-by-client-request-id',
  text: `SELECT request_id, client_request_id, status, body::text AS body FROM stored_responses
      WHERE organization_id = $1 AND client_request_id = $2 AND created_at > now() - make_interval(hours => $3::int)
      ORDER BY created_at DESC, request_id DESC
      LIMIT 1`,
  columns: ['request_id', 'client_request_id', 'status', 'body'],
  sample: (organizationId) => [organizationId, '', 24],
});

/** Deletes the answers older than $1 hours (database clock); how many. */
export const DELETE_EXPIRED_STORED_RESPONSES = defineStatement<{ deleted: number }>({
  name: 'requests.delete-expired',
  text: `WITH deleted AS (
        DELETE FROM stored_responses WHERE created_at <= now() - make_interval(hours => $1::int) RETURNING 1
      )
      SELECT count(*)::int AS deleted FROM deleted`,
  columns: ['deleted'],
  // Nothing is older than a century.
  sample: () => [876_000],
});

export const REQUESTS_STATEMENTS = [STORE_ANSWER, STORED_RESPONSE_BY_REQUEST_ID, STORED_RESPONSE_BY_CLIENT_REQUEST_ID, DELETE_EXPIRED_STORED_RESPONSES];
