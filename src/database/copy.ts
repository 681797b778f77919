import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { SqlClient } from './statements';

/** A cell of COPY's text format: null is `\N`; an array of strings is a PostgreSQL array literal. */
export type CopyValue = string | number | boolean | null | readonly (string | null)[];

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** The client-side bound of one COPY: an upload of IMPORT_MAX_BYTES at a slow but live pace. */
const COPY_TIMEOUT_MS = 6 * 60 * 60 * 1000;

/** Characters of COPY lines sent to PostgreSQL together (a source that stalls holds back at most this much). */
const COPY_BATCH_CHARS = 64 * 1024;

/** Backslash, newline, carriage return and tab are what COPY's text format escapes. */
function escapeText(text: string): string {
  return /[\\\n\r\t]/.test(text) ? text.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t')) : text;
}

/** An array literal's element: always quoted, `"` and `\` escaped. */
function arrayElement(element: string | null): string {
  return element === null ? 'NULL' : `"${element.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function cell(value: CopyValue): string {
  if (value === null) return '\\N';
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return escapeText(`{${value.map(arrayElement).join(',')}}`);
}

/** One line of COPY's text format. */
function copyLine(row: readonly CopyValue[]): string {
  return `${row.map(cell).join('\t')}\n`;
}

/**
 * Bulk-loads `rows` into `table` with `COPY ... FROM STDIN` (pg-copy-streams) on the client of
 * the caller's open transaction `tx` (Database.transaction): the rows go in that transaction,
 * streamed with backpressure, so nothing is held but what the socket has not taken. `rows` may be
 * an async iterable that throws (the upload failed): the COPY is then aborted and the error
 * rethrown, and the caller's transaction rolls back. `table` and `columns` are identifiers of the
 * caller's code, never input. Returns the number of rows copied.
 */
export async function copyRows(
  tx: SqlClient,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly CopyValue[]> | AsyncIterable<readonly CopyValue[]>,
): Promise<number> {
  for (const name of [table, ...columns]) if (!IDENTIFIER.test(name)) throw new Error(`copyRows: not an identifier: ${name}`);
  // Database.transaction's client is a pg PoolClient; SqlClient names only what statements need.
  const client = tx as unknown as PoolClient;
  // pg's per-query `query_timeout` (the pool's is DB_STATEMENT_TIMEOUT_MS + 2 s) would cut a COPY
  // that lasts as long as an upload: the caller bounds the source instead (the upload's idle timeout).
  const copy = Object.assign(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`), { query_timeout: COPY_TIMEOUT_MS });
  const sink = client.query(copy);
  let count = 0;
  async function* lines(): AsyncGenerator<string> {
    // Lines go out COPY_BATCH_CHARS at a time: pg-copy-streams sends every chunk it is given as its
    // own CopyData message (two socket writes), which per line cost more than making the line.
    let batch = '';
    for await (const row of rows) {
      count++;
      batch += copyLine(row);
      if (batch.length >= COPY_BATCH_CHARS) {
        yield batch;
        batch = '';
      }
    }
    if (batch !== '') yield batch;
  }
  await pipeline(Readable.from(lines(), { objectMode: false }), sink);
  // 'finish' is when PostgreSQL confirmed the COPY (pg-copy-streams emits it after CommandComplete).
  if (!sink.writableFinished) await once(sink, 'finish');
  return count;
}
