import { runIn, type SqlClient } from '../database/statements';
import type { Answer } from './stored-answer';
import { emailsHeldBy, STORE_ANSWER } from './stored-responses.statements';

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
