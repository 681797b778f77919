import type { Writable } from 'node:stream';
import type { ListingFilters } from '../contacts/listing/listing-query';
import type { Database } from '../database/database';
import { runIn, type SqlClient } from '../database/statements';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError } from '../errors/request-error';
import { encodeFeedCursor } from '../events/event-cursor';
import { csvColumns, csvRecord, exportRecord } from './export-csv';
import { EXPORT_FREEZE, EXPORT_LIST_FOUND, EXPORT_PLACE, EXPORT_ROWS, EXPORT_SLOT, EXPORT_THAW } from './exports.statements';

export type ExportFormat = 'ndjson' | 'csv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['ndjson', 'csv'];

export interface ExportRequest {
  organizationId: string;
  filters: ListingFilters;
  format: ExportFormat;
}

/** What is known once the snapshot is taken, before the first byte. */
export interface ExportOpened {
  /** The GET /api/v2/events cursor of the snapshot (X-Feed-Cursor). */
  feedCursor: string;
}

export interface ExportSummary extends ExportOpened {
  rows: number;
}

/** Seconds a caller refused with TOO_MANY_EXPORTS is asked to wait. */
export const TOO_MANY_EXPORTS_RETRY_AFTER_SECONDS = 10;

/** Rows per FETCH (unless the caller says otherwise): one round trip and one write per this many contacts. */
const FETCH_ROWS = 2000;

/**
 * How long the export's transaction may sit idle while the receiver does not read (backpressure):
 * the pool's idle_in_transaction_session_timeout is set for requests, whose transactions never wait
 * for a caller, and would end an export whose receiver reads slowly. A receiver that reads nothing
 * for this long loses its stream (cut, as any export the service cannot finish). Every FETCH is
 * still one statement of at most FETCH_ROWS rows, under the pool's statement_timeout; the first
 * also sorts the organization's memberships by email (EXPORT_ROWS).
 */
const EXPORT_IDLE_TIMEOUT = '5min';

const CURSOR_NAME = 'contacts_export';

/** The receiver went away (or the sink failed): the export stops and its transaction rolls back. */
export class ExportStopped extends Error {
  constructor() {
    super('The export stream was closed before it ended');
  }
}

/**
 * Streams the organization's contacts matching the listing's filters, as of one snapshot, into
 * `sink` (contract section 17): NDJSON, one contact per line as GET /contacts/{email} shows it
 * (rendered by PostgreSQL: EXPORT_ROWS composes contactJsonPart, so this only copies the text), or
 * CSV (export-csv.ts, its cells as EXPORT_ROWS.csv returns them). `opened` is called once the snapshot is
 * taken, before anything is written (the HTTP answer sets its headers there); request-level errors (429
 * TOO_MANY_EXPORTS, 404 LIST_NOT_FOUND, 503) are thrown before it. The sink is ended once every
 * row is in it; on a failure it is left as it is (the caller cuts it).
 *
 * One transaction through Database.transaction, on one connection for the whole stream:
 * 1. one of the organization's two export slots (EXPORT_SLOT), held until the transaction ends;
 * 2. the snapshot and its feed place, taken while the organization's committed state stands still
 *    (EXPORT_FREEZE: every commit that took a feed position has ended, and none can take one until
 *    EXPORT_THAW): the cursor DECLAREd then keeps its snapshot for every FETCH, and EXPORT_PLACE
 *    reads the last position handed out. The snapshot holds every event at or before that place and
 *    none after it: the feed from the cursor applied to the export loses and repeats nothing.
 *    Why not a REPEATABLE READ transaction: its snapshot is taken by its first statement, before
 *    any lock could be waited for, so commits in flight then would be missing from the export and
 *    still sit at or before the place. A cursor's snapshot is taken at its DECLARE, after the wait.
 * 3. FETCHes of FETCH_ROWS rows, each batch written while the next FETCH runs; a batch is written
 *    once the sink has drained the one before (at most two batches in memory).
 */
export async function streamExport(
  database: Database,
  request: ExportRequest,
  sink: Writable,
  opened: (info: ExportOpened) => void,
  options: { fetchRows?: number } = {},
): Promise<ExportSummary> {
  const { organizationId, filters, format } = request;
  const fetchRows = options.fetchRows ?? FETCH_ROWS;
  return database.transaction(async (tx) => {
    await tx.query(`SET TRANSACTION READ ONLY; SET LOCAL idle_in_transaction_session_timeout = '${EXPORT_IDLE_TIMEOUT}'`);
    const [{ slot }] = await runIn(tx, EXPORT_SLOT, [organizationId]);
    if (slot === null) {
      throw new RequestError(RequestErrorCode.TOO_MANY_EXPORTS, 'Two exports of this organization are streaming: retry when one has ended', {
        'Retry-After': String(TOO_MANY_EXPORTS_RETRY_AFTER_SECONDS),
      });
    }
    if (filters.listId !== null) {
      const [{ found }] = await runIn(tx, EXPORT_LIST_FOUND, [organizationId, filters.listId]);
      if (!found) throw new RequestError(RequestErrorCode.LIST_NOT_FOUND, 'listId names no list of this organization');
    }
    const rowsText = EXPORT_ROWS[filters.updatedSince === null ? format : (`${format}UpdatedSince` as const)].text;
    const place = await openSnapshot(tx, organizationId, rowsText, [organizationId, filters.listId, filters.suppressed, filters.updatedSince]);
    const feedCursor = encodeFeedCursor({ position: BigInt(place.position), seq: BigInt(place.seq) }, organizationId);
    opened({ feedCursor });

    if (format === 'csv') await write(sink, csvRecord(csvColumns(place.fieldKeys)));
    const fetch = () => {
      // Rows as arrays of column values: no object a row.
      const fetched = tx
        .query<(string | null)[]>({ text: `FETCH FORWARD ${fetchRows} FROM ${CURSOR_NAME}`, rowMode: 'array' })
        .then((result) => result.rows);
      // Awaited below; until then a failure must not be an unhandled rejection (the write may fail first).
      fetched.catch(() => undefined);
      return fetched;
    };
    let rows = 0;
    let next = fetch();
    for (;;) {
      const batch = await next;
      // The next FETCH runs in PostgreSQL while this batch is written and the sink drains.
      if (batch.length === fetchRows) next = fetch();
      if (batch.length > 0) {
        let text = '';
        if (format === 'csv') for (const row of batch) text += exportRecord(row, place.fieldKeys);
        else for (const row of batch) text += `${row[0]}\n`;
        rows += batch.length;
        await write(sink, text);
      }
      if (batch.length < fetchRows) break;
    }
    // Ended inside the transaction: the slot counts until the last byte is written (contract section 17).
    await end(sink);
    return { feedCursor, rows };
  });
}

/**
 * Step 2 of streamExport. The freeze lock is a session lock, which no ROLLBACK gives back: a
 * failure between EXPORT_FREEZE and EXPORT_THAW rolls back to the savepoint (so that the
 * connection takes statements again) and thaws before the error goes on.
 */
async function openSnapshot(tx: SqlClient, organizationId: string, rowsText: string, rowValues: unknown[]) {
  await tx.query('SAVEPOINT export_snapshot');
  await runIn(tx, EXPORT_FREEZE, [organizationId]);
  try {
    await tx.query({ text: `DECLARE ${CURSOR_NAME} NO SCROLL CURSOR FOR ${rowsText}`, values: rowValues });
    const [place] = await runIn(tx, EXPORT_PLACE, [organizationId]);
    await runIn(tx, EXPORT_THAW, [organizationId]);
    return place;
  } catch (error) {
    // A lost connection gives its session locks back by itself; then these fail too.
    await tx.query('ROLLBACK TO SAVEPOINT export_snapshot').catch(() => undefined);
    await runIn(tx, EXPORT_THAW, [organizationId]).catch(() => undefined);
    throw error;
  }
}

/** Writes `text`; resolves once the sink takes more (backpressure); ExportStopped when it closed. */
function write(sink: Writable, text: string): Promise<void> {
  if (sink.destroyed || sink.writableEnded) return Promise.reject(new ExportStopped());
  return sink.write(text) ? Promise.resolve() : until(sink, 'drain');
}

/** Ends the sink; resolves once it finished, ExportStopped when it closed first. */
function end(sink: Writable): Promise<void> {
  if (sink.destroyed) return Promise.reject(new ExportStopped());
  const finished = until(sink, 'finish');
  sink.end();
  return finished;
}

/** Resolves on the sink's `event`; rejects with ExportStopped if it closes or fails first. */
function until(sink: Writable, event: 'drain' | 'finish'): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      sink.off(event, onEvent);
      sink.off('close', onClose);
      sink.off('error', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onEvent = () => settle();
    const onClose = () => settle(new ExportStopped());
    sink.on(event, onEvent);
    sink.on('close', onClose);
    sink.on('error', onClose);
  });
}
