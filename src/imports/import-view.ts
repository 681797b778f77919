import type { ContactResult } from '../contacts/contact-results';
import type { ImportRow } from './imports.statements';

/** `<import>` of contract section 17, exactly its keys. */
export function importView(row: ImportRow) {
  return {
    id: row.id,
    status: row.status,
    format: row.format,
    overwrite: row.overwrite,
    dryRun: row.dryRun,
    rows: row.rows,
    processed: row.processed,
    counts: { created: row.created, updated: row.updated, unchanged: row.unchanged, failed: row.failed },
    codes: row.codes,
    clientRequestId: row.clientRequestId,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    error: row.errorCode === null ? null : { code: row.errorCode, message: row.errorMessage ?? '' },
  };
}

export type ImportView = ReturnType<typeof importView>;

/** A row that failed before the pipeline: INVALID_ROW, INVALID_EMAIL or DUPLICATE_IN_REQUEST. */
export interface RowFailure {
  status: 'failed';
  code: string;
  message: string;
  invalidListIds?: undefined;
  suppressionReason?: undefined;
}

/** A result line's keys after `row` and `email`, as JSON object text (stored as import_rows.result). */
export function resultText(result: ContactResult | RowFailure): string {
  const line: Record<string, unknown> = { status: result.status };
  if (result.status === 'failed') {
    line.code = result.code;
    line.message = result.message;
    if (result.invalidListIds) line.invalidListIds = result.invalidListIds;
    if (result.suppressionReason) line.suppressionReason = result.suppressionReason;
    return JSON.stringify(line);
  }
  if (result.status === 'updated') {
    line.changedFields = result.changedFields;
    line.addedListIds = result.addedListIds;
  }
  if (result.id !== null) line.id = result.id;
  return JSON.stringify(line);
}

/** One line of GET /imports/{id}/results: `{"row","email",...result}`. */
export function resultLine(row: number, email: string | null, result: string): string {
  return `{"row":${row},"email":${JSON.stringify(email)},${result.slice(1)}\n`;
}

/** Public import ids: `imp_` + 32 hex digits. */
export const IMPORT_ID = /^imp_[0-9a-f]{32}$/;
