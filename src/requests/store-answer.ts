import { runIn, type SqlClient } from '../database/statements';
import type { Answer } from './stored-answer';
import { isStorableText } from '../common/storable-text';
import { STORE_ANSWER } from './stored-responses.statements';

/** A request's answer to store (GET /requests/{request_id}). */
export interface AnswerWrite {
  requestId: string;
  /** The X-Client-Request-Id the POST sent, if any (GET /requests?clientRequestId=). */
  clientRequestId: string | null;
  answer: Answer;
}

/**
 * Stores `stored` for organization `organizationId` in the caller's open transaction `tx`
 * (`Database.transaction`), so that the answer exists exactly when the writes it reports do.
 */
export async function storeAnswer(tx: SqlClient, organizationId: string, stored: AnswerWrite): Promise<void> {
  await runIn(tx, STORE_ANSWER, [organizationId, ...storeAnswerValues(stored)]);
}

/** The values of the stored answer's INSERT after the organization (STORE_ANSWER, storeAnswerPart), in order. */
export function storeAnswerValues(stored: AnswerWrite): unknown[] {
  const { requestId, answer } = stored;
  return [requestId, answer.status, JSON.stringify(answer.body), stored.clientRequestId, emailsHeldBy(answer.body)];
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
