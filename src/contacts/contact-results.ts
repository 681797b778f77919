/**
 * The per-contact results of the pipeline and the response bodies of docs/api.md#endpoints (with
 * dryRun, changedFields/addedListIds and suppressionReason: #dry-run, #rules-and-codes).
 */
import type { Answer } from '../requests/stored-answer';
import { singleEndpointStatusOf } from './contact-error-codes';
import type { ContactFailureCode, SuppressionReason } from './contact-rules';

export type ContactResult =
  /** `id` is null on a dry run: nothing was created. */
  | { status: 'created'; email: string; id: string | null }
  | { status: 'updated'; email: string; id: string; changedFields: string[]; addedListIds: string[] }
  | { status: 'unchanged'; email: string; id: string }
  | {
      status: 'failed';
      /** The normalized input when it was a string, else null. */
      email: string | null;
      code: ContactFailureCode;
      message: string;
      invalidListIds?: string[];
      suppressionReason?: SuppressionReason;
    };

/** One result as it appears in a body (without request_id / index). */
function renderResult(result: ContactResult): Record<string, unknown> {
  if (result.status === 'created' && result.id === null) {
    return { email: result.email, status: result.status };
  }
  const { status, email, ...rest } = result;
  // `id` first on success, as in `{ request_id, id, email, status }`.
  if (status !== 'failed' && 'id' in rest) {
    const { id, ...details } = rest;
    return { id, email, status, ...details };
  }
  return { email, status, ...rest };
}

const withDryRun = (body: Record<string, unknown>, dryRun: boolean) => (dryRun ? { ...body, dryRun: true } : body);

/** HTTP status of POST /api/v2/contacts for a result. */
export function httpStatusOfResult(result: ContactResult): number {
  switch (result.status) {
    case 'created':
      return 201;
    case 'updated':
    case 'unchanged':
      return 200;
    case 'failed':
      return singleEndpointStatusOf(result.code) ?? 400;
  }
}

/** POST /api/v2/contacts: the result is the whole body. */
export function renderSingleResponse(requestId: string, result: ContactResult, dryRun: boolean) {
  return {
    status: httpStatusOfResult(result),
    body: withDryRun({ request_id: requestId, ...renderResult(result) }, dryRun),
  };
}

export interface BatchSummary {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

/** POST /api/v2/contacts/batch: always 200, one entry per input row in input order. */
export function renderBatchResponse(requestId: string, results: ContactResult[], dryRun: boolean) {
  const summary: BatchSummary = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  for (const result of results) summary[result.status]++;
  return {
    status: 200,
    body: withDryRun(
      {
        request_id: requestId,
        results: results.map((result, index) => ({ index, ...renderResult(result) })),
        summary,
      },
      dryRun,
    ),
  };
}

/** Which POST endpoint a request came through: it decides how the results are rendered. */
export type ContactsEndpoint = 'single' | 'batch';

/** The answer of a POST: rendered once, from the results, by its endpoint's renderer. */
export function renderAnswer(endpoint: ContactsEndpoint, requestId: string, results: ContactResult[], dryRun: boolean): Answer {
  return endpoint === 'single' ? renderSingleResponse(requestId, results[0], dryRun) : renderBatchResponse(requestId, results, dryRun);
}
