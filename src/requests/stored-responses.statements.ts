import { isStorableText } from '../common/storable-text';
import type { SqlParams } from '../database/sql-params';
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
