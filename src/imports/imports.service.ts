import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { copyRows } from '../database/copy';
import { Database } from '../database/database';
import { runIn, type SqlClient } from '../database/statements';
import { CustomFieldsRepository } from '../custom-fields/custom-fields.repository';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError, invalidRequest } from '../errors/request-error';
import { writeEvents } from '../events/event-writes';
import { asCopyValues, type ImportFormat, UPLOAD_COLUMNS, uploadRows, uploadStream } from './import-upload';
import { IMPORT_ID, type ImportView, importView, resultLine } from './import-view';
import {
  CANCEL_IMPORT,
  GET_IMPORT,
  type ImportRow,
  INSERT_IMPORT,
  LIST_IMPORTS,
  NO_STATEMENT_TIMEOUT,
  RESULT_LINES,
  SEAL_IMPORT,
} from './imports.statements';

export const importNotFound = () => new RequestError(RequestErrorCode.IMPORT_NOT_FOUND, 'No import with this id in this organization');

/** Result lines read per statement while GET /imports/{id}/results streams. */
const RESULTS_PAGE = 1000;

export interface UploadRequest {
  organizationId: string;
  requestId: string;
  clientRequestId: string | null;
  format: ImportFormat;
  overwrite: boolean;
  dryRun: boolean;
}

/** Writes import.finished (contract 17) in the transaction that ends a real import. */
export async function writeFinishedEvent(tx: SqlClient, row: ImportRow): Promise<void> {
  if (row.dryRun) return;
  await writeEvents(tx, row.organizationId, row.requestId, new Date(), [
    { organizationId: row.organizationId, type: 'import.finished', data: { import: importView(row) } },
  ]);
}

/** Imports' answers: the upload, reads, results and cancel (contract section 17). */
@Injectable()
export class ImportsService {
  constructor(
    private readonly database: Database,
    private readonly fields: CustomFieldsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Streams the file into import_rows (COPY) in ONE transaction with its import, committed before
   * the answer: every row is stored durably, or (any request-level error) nothing is.
   */
  async upload(req: Request, request: UploadRequest): Promise<ImportView> {
    const body = uploadStream(req, this.uploadLimits());
    if (/100-continue/i.test(req.headers.expect ?? '')) req.res?.writeContinue();
    return this.store(body, request);
  }

  /** The limits of one file: IMPORT_MAX_BYTES, IMPORT_MAX_ROWS and the body's idle timeout. */
  uploadLimits() {
    return { maxBytes: this.config.IMPORT_MAX_BYTES, maxRows: this.config.IMPORT_MAX_ROWS, idleTimeoutMs: this.config.BODY_TIMEOUT_MS };
  }

  /**
   * Stores a file's decoded bytes (upload's body, or fileStream of a file the admin command line
   * reads) as a new import; destroys `body` when done.
   */
  async store(body: Readable, request: UploadRequest): Promise<ImportView> {
    const id = `imp_${randomUUID().replace(/-/g, '')}`;
    try {
      const fields = request.format === 'csv' ? await this.fields.findByKey(request.organizationId) : new Map();
      // Generic plans: the COPY's foreign-key check (import_rows.import_id) runs once a row, and under
      // the pool's force_custom_plan PostgreSQL would plan it again for every row.
      const row = await this.database.transaction(async (tx) => {
        await runIn(tx, NO_STATEMENT_TIMEOUT, []);
        const source = uploadRows(id, request.format, body, this.config.IMPORT_MAX_ROWS, fields);
        // The import first (the rows' foreign key); its header once the first record was read.
        await runIn(tx, INSERT_IMPORT, [
          id, request.organizationId, request.format, request.overwrite, request.dryRun, request.requestId, request.clientRequestId, null,
        ]);
        const rows = (async function* () {
          for await (const uploaded of source.rows) yield asCopyValues(uploaded);
        })();
        const count = await copyRows(tx, 'import_rows', UPLOAD_COLUMNS, rows);
        if (count === 0) throw invalidRequest('The file has no row');
        const [sealed] = await runIn(tx, SEAL_IMPORT, [id, count, source.header]);
        return sealed;
      }, { genericPlans: true });
      return importView(row);
    } finally {
      body.destroy();
    }
  }

  async get(organizationId: string, id: string): Promise<ImportView> {
    return importView(await this.find(organizationId, id));
  }

  private async find(organizationId: string, id: string): Promise<ImportRow> {
    if (!IMPORT_ID.test(id)) throw importNotFound();
    const [row] = await this.database.run(GET_IMPORT, [id, organizationId]);
    if (!row) throw importNotFound();
    return row;
  }

  async list(organizationId: string, limit: number, after: { createdAt: Date; id: string } | null, clientRequestId: string | null) {
    const rows = await this.database.run(LIST_IMPORTS, [organizationId, limit + 1, after?.createdAt ?? null, after?.id ?? null, clientRequestId]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { imports: page.map(importView), next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null };
  }

  /**
   * Queued: cancelled at once. Running: the statement waits for the chunk in progress (it holds
   * the import's row), so the answer comes once processing has stopped. Ended: 409.
   */
  async cancel(organizationId: string, id: string): Promise<ImportView> {
    if (!IMPORT_ID.test(id)) throw importNotFound();
    const cancelled = await this.database.transaction(async (tx) => {
      const [row] = await runIn(tx, CANCEL_IMPORT, [id, organizationId]);
      if (row) await writeFinishedEvent(tx, row);
      return row;
    });
    if (cancelled) return importView(cancelled);
    await this.find(organizationId, id);
    throw new RequestError(RequestErrorCode.IMPORT_FINISHED, 'The import already ended (completed, cancelled or failed)');
  }

  /** NDJSON result lines in row order, read a page at a time and written with backpressure. */
  async streamResults(organizationId: string, id: string, status: string | null, res: Response): Promise<void> {
    await this.find(organizationId, id);
    let page = await this.database.run(RESULT_LINES, [id, 0, RESULTS_PAGE, status]);
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson');
    try {
      for (;;) {
        let text = '';
        for (const line of page) text += resultLine(line.row, line.email, line.result);
        if (text !== '' && !res.write(text)) await new Promise((resolve) => res.once('drain', resolve));
        if (page.length < RESULTS_PAGE || res.destroyed) break;
        page = await this.database.run(RESULT_LINES, [id, page[page.length - 1].row, RESULTS_PAGE, status]);
      }
      res.end();
    } catch {
      // The status line is sent: a stream the service cannot finish is cut without its last chunk.
      res.destroy();
    }
  }
}
