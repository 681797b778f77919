import { isStorableText } from '../common/storable-text';
import type { SqlParams } from '../database/sql-params';
import { defineStatement } from '../database/statements';
import type { Answer } from './stored-answer';

/**
 * The INSERT of one stored answer, its placeholders numbered by `p` in the order of
 * `storedResponseValues`: a CTE of the contacts write statement (contacts.statements.ts), so the
 * contacts and their answer are one round trip. The body travels as its JSON text (what Express
 * sends): answers can echo input holding U+0000 or lone surrogates, which JSON.stringify escapes
 * into plain ASCII (jsonb would refuse U+0000; the column is `json`).
 */
export function storedResponseInsert(p: SqlParams): string {
  const [requestId, organizationId, status, body, clientRequestId, emails] = [
    'request_id',
    'organization_id',
    'status',
    'body',
    'client_request_id',
    'emails',
  ].map((column) => p.add(column));
  return `INSERT INTO stored_responses (request_id, organization_id, status, body, client_request_id, emails)
      VALUES (${requestId}, ${organizationId}, ${status}::int, ${body}::json, ${clientRequestId}::text, ${emails}::text[])`;
}

/** The values of `storedResponseInsert`, in its order. */
export function storedResponseValues(organizationId: string, requestId: string, answer: Answer, clientRequestId: string | null): unknown[] {
  return [requestId, organizationId, answer.status, JSON.stringify(answer.body), clientRequestId, emailsHeldBy(answer.body)];
}

/** The longest string stored in stored_responses.emails (characters; 4 bytes each at most). */
export const INDEXED_EMAIL_MAX_LENGTH = 500;

/**
 * The addresses an answer holds, valid or not: every string under an `email` key (the single
 * answer's, each batch row's). Stored beside the body (stored_responses.emails, GIN-indexed) so
 * erasure finds the answers holding an address without reading bodies (docs/api.md, "Erasing a
 * contact"). A string PostgreSQL cannot hold as text (U+0000, lone surrogate) is left out: no
 * path value can name it either.
 */
export function emailsHeldBy(body: unknown): string[] {
  // Longer strings cannot be an address (254 at most) and would not fit a GIN index entry (about
  // 2,700 bytes): they stay out, and erasure finds them in the bodies (erasure.service.ts).
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (typeof value === 'object' && value !== null) {
      // Own enumerable keys in Object.entries' order, without an array per key.
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const item = (value as Record<string, unknown>)[key];
        if (key === 'email' && typeof item === 'string') {
          if (isStorableText(item) && item.length <= INDEXED_EMAIL_MAX_LENGTH) found.add(item);
        } else visit(item);
      }
    }
  };
  visit(body);
  return [...found];
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

export const STORED_RESPONSES_STATEMENTS = [STORED_RESPONSE_BY_REQUEST_ID, STORED_RESPONSE_BY_CLIENT_REQUEST_ID, DELETE_EXPIRED_STORED_RESPONSES];
