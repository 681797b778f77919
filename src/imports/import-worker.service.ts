import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type LoggerService, type OnApplicationBootstrap, type OnModuleDestroy, Optional } from '@nestjs/common';
import { EventLoopTurns } from '../common/event-loop-turns';
import { FIRST_SWEEP_AFTER_MS, PeriodicSweep } from '../common/periodic-sweep';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import type { ContactInput } from '../contacts/contact-input.shape';
import type { ContactResult } from '../contacts/contact-results';
import { ContactsPipelineService } from '../contacts/contacts-pipeline.service';
import { CustomFieldsRepository } from '../custom-fields/custom-fields.repository';
import { Database } from '../database/database';
import { faultMessage } from '../database/database-errors';
import { runIn, type SqlClient } from '../database/statements';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError } from '../errors/request-error';
import { type EmailHasher, ErasureSecrets } from '../suppressions/erasure-secrets';
import { type RowFailure, resultText } from './import-view';
import { writeFinishedEvent } from './imports.service';
import {
  ADVANCE_IMPORT,
  CLAIM_IMPORT,
  DELETE_EXPIRED_IMPORTS,
  FAIL_IMPORT,
  type ImportRow,
  NEXT_ROWS,
  RELEASE_LEASES,
  RENEW_LEASE,
  WRITE_RESULTS,
} from './imports.statements';
import { type CsvHeader, type FieldDefinitions, type RowRead, readCsvHeader, readCsvRecord, readNdjsonRow } from './rows/row-reading';

/** Imports one instance processes at once (each organization's share is IMPORT_CONCURRENCY, across instances). */
const IMPORTS_PER_INSTANCE = 4;
/** How often an idle instance looks for imports to start or to take over. */
const POLL_MS = 1000;
/** Failed chunk transactions in a row after which the import is `failed` (the service cannot finish it). */
const MAX_CHUNK_FAILURES = 5;
/** Imports deleted per retention statement. */
const SWEEP_CHUNK = 100;

/** Where a worker made outside the app logs (the admin command line: stderr); the app's Logger otherwise. */
export const IMPORTS_LOGGER = Symbol('IMPORTS_LOGGER');

type ChunkOutcome = 'more' | 'done' | 'stopped';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Processes imports (contract section 17), shared by every instance through the database alone
 * (docs/decisions.md, "Imports: SKIP LOCKED leases"). An import is claimed with `FOR UPDATE SKIP
 * LOCKED` and a lease (IMPORT_LEASE_SECONDS). Its rows are applied in file order, IMPORT_CHUNK_ROWS
 * to a transaction: the chunk's first statement renews the lease (and holds the import's row until
 * it commits), then the contacts pipeline's rules and writes run in the same transaction, the
 * rows' results are written and the import's progress and counts advance. Chunks run
 * IMPORT_CHUNK_PAUSE_MS apart, so other requests get their share. A row is applied and gets its
 * result in one commit, or not at all: an instance that dies mid-chunk leaves nothing of
 * it, and another (or the restarted one) takes the import over once its lease ended.
 */
@Injectable()
export class ImportWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: LoggerService;
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly active = new Map<string, Promise<void>>();
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private filling: Promise<void> | undefined;
  private readonly sweep: PeriodicSweep<number>;

  constructor(
    private readonly database: Database,
    private readonly fields: CustomFieldsRepository,
    private readonly pipeline: ContactsPipelineService,
    private readonly secrets: ErasureSecrets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(IMPORTS_LOGGER) logger?: LoggerService,
  ) {
    this.logger = logger ?? new Logger('Imports');
    this.sweep = new PeriodicSweep({
      everyMs: 60 * 60 * 1000,
      firstAfterMs: FIRST_SWEEP_AFTER_MS,
      logger: this.logger,
      failureMessage: 'Sweeping expired imports failed',
      failedResult: 0,
      sweep: () => this.deleteExpired(),
    });
  }

  onApplicationBootstrap(): void {
    this.sweep.start();
    if (!this.config.IMPORT_PROCESSING) return;
    this.timer = setInterval(() => this.wake(), POLL_MS).unref();
    this.wake();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.filling;
    await Promise.allSettled(this.active.values());
    // What this instance held goes to another at once, not when the lease ends.
    await this.database.run(RELEASE_LEASES, [this.owner]).catch(() => undefined);
    await this.sweep.stop();
  }

  /** Looks for imports to start now (after an upload, and every POLL_MS). */
  wake(): void {
    if (this.stopping || !this.config.IMPORT_PROCESSING) return;
    this.filling ??= this.fill().finally(() => {
      this.filling = undefined;
    });
  }

  /**
   * Runs import `id` in this process, to its end, if it may run now: queued and next of its
   * organization under IMPORT_CONCURRENCY, or running with an ended lease. False when it may not
   * (another instance holds it, it waits its turn, or it ended). The admin command line's `import`.
   */
  async processOne(id: string): Promise<boolean> {
    const [claimed] = await this.database.run(CLAIM_IMPORT, [this.owner, this.config.IMPORT_LEASE_SECONDS, this.config.IMPORT_CONCURRENCY, id]);
    if (!claimed) return false;
    await this.runImport(claimed);
    return true;
  }

  /** Retention: imports that ended IMPORT_RETENTION_DAYS ago, with their rows. Returns how many went. */
  async deleteExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const [{ deleted }] = await this.database.run(DELETE_EXPIRED_IMPORTS, [this.config.IMPORT_RETENTION_DAYS, SWEEP_CHUNK]);
      total += deleted;
      if (deleted < SWEEP_CHUNK || this.sweep.stopping) return total;
    }
  }

  private async fill(): Promise<void> {
    try {
      while (!this.stopping && this.active.size < IMPORTS_PER_INSTANCE) {
        const [claimed] = await this.database.run(CLAIM_IMPORT, [this.owner, this.config.IMPORT_LEASE_SECONDS, this.config.IMPORT_CONCURRENCY, null]);
        if (!claimed) return;
        const id = claimed.id;
        this.active.set(
          id,
          this.runImport(claimed)
            .catch((error: unknown) => this.logger.warn(`Import ${id} stopped: ${faultMessage(error)}`))
            .finally(() => {
              this.active.delete(id);
              this.wake();
            }),
        );
      }
    } catch (error) {
      this.logger.warn(`Claiming imports failed: ${faultMessage(error)}`);
    }
  }

  private async runImport(row: ImportRow): Promise<void> {
    const hashEmail = await this.secrets.hasherFor(row.organizationId);
    let failures = 0;
    while (!this.stopping) {
      try {
        const fields = row.format === 'csv' ? await this.fields.findByKey(row.organizationId) : new Map();
        const outcome = await this.database.transaction((tx) => this.chunk(tx, row, fields, hashEmail));
        if (outcome !== 'more') return;
        failures = 0;
        // Between chunks the import holds nothing: other requests take the database and CPU meanwhile.
        if (this.config.IMPORT_CHUNK_PAUSE_MS > 0) await sleep(this.config.IMPORT_CHUNK_PAUSE_MS);
      } catch (error) {
        failures++;
        // The CSV header names a field that no longer exists: the service cannot finish the import.
        const cannotFinish = error instanceof RequestError && error.code === RequestErrorCode.INVALID_REQUEST;
        if (cannotFinish || failures >= MAX_CHUNK_FAILURES) {
          await this.fail(row.id, error instanceof RequestError ? error.message : faultMessage(error));
          return;
        }
        this.logger.warn(`Import ${row.id}: a chunk failed (attempt ${failures}), retrying: ${faultMessage(error)}`);
        await sleep(200 * failures);
      }
    }
  }

  private async fail(id: string, message: string): Promise<void> {
    this.logger.error(`Import ${id} failed: ${message}`);
    await this.database.transaction(async (tx) => {
      const [failed] = await runIn(tx, FAIL_IMPORT, [id, 'IMPORT_FAILED', message]);
      if (failed) await writeFinishedEvent(tx, failed);
    });
  }

  /** One chunk, in the caller's transaction: lease, rows, pipeline, results, progress. */
  private async chunk(tx: SqlClient, row: ImportRow, fields: FieldDefinitions, hashEmail: EmailHasher): Promise<ChunkOutcome> {
    const [lease] = await runIn(tx, RENEW_LEASE, [row.id, this.owner, this.config.IMPORT_LEASE_SECONDS]);
    if (!lease) return 'stopped'; // cancelled, or taken over after this instance's lease ended
    const stored = await runIn(tx, NEXT_ROWS, [row.id, lease.processed, this.config.IMPORT_CHUNK_ROWS]);
    const header: CsvHeader | undefined = row.format === 'csv' ? readCsvHeader(row.csvHeader ?? [], fields) : undefined;
    const defaults = { overwrite: row.overwrite };

    // The chunk's per-row work (reading rows, rendering results) in slices, with turns for other requests between them.
    const turns = new EventLoopTurns();
    const results: Array<ContactResult | RowFailure | undefined> = [];
    const inputs: ContactInput[] = [];
    const inputAt: number[] = [];
    for (const [index, stored_] of stored.entries()) {
      await turns.turn();
      const fail = (code: string, message: string): RowFailure => ({ status: 'failed', code, message });
      if (stored_.problem !== null) {
        results.push(fail('INVALID_ROW', stored_.problem));
        continue;
      }
      let read: RowRead;
      if (row.format === 'ndjson' && stored_.line !== null) read = readNdjsonRow(stored_.line, defaults);
      else if (header && stored_.cells !== null) read = readCsvRecord(stored_.cells, header, defaults);
      else {
        results.push(fail('INVALID_ROW', 'row content was erased'));
        continue;
      }
      if (read.kind === 'invalid') results.push(fail(read.code, read.message));
      else if (stored_.duplicateOf !== null) {
        results.push(fail('DUPLICATE_IN_REQUEST', `email already appears in row ${stored_.duplicateOf} of this file; rows are never merged`));
      } else {
        results.push(undefined);
        inputs.push(read.input);
        inputAt.push(index);
      }
    }
    if (inputs.length > 0) {
      const applied = await this.pipeline.applyInTransaction(tx, {
        organizationId: row.organizationId,
        requestId: row.requestId,
        dryRun: row.dryRun,
        inputs,
        hashEmail,
      });
      applied.forEach((result, i) => (results[inputAt[i]] = result));
    }

    const counts = { created: 0, updated: 0, unchanged: 0, failed: 0 };
    const codes: Record<string, number> = {};
    const statuses: string[] = [];
    const texts: string[] = [];
    for (const result of results as Array<ContactResult | RowFailure>) {
      await turns.turn();
      counts[result.status]++;
      if (result.status === 'failed') codes[result.code] = (codes[result.code] ?? 0) + 1;
      statuses.push(result.status);
      texts.push(resultText(result));
    }
    if (stored.length > 0) await runIn(tx, WRITE_RESULTS, [row.id, stored.map((r) => r.row), statuses, texts]);
    const [advanced] = await runIn(tx, ADVANCE_IMPORT, [
      row.id, stored.length, counts.created, counts.updated, counts.unchanged, counts.failed, JSON.stringify(codes),
    ]);
    if (advanced.status !== 'completed') return 'more';
    await writeFinishedEvent(tx, advanced);
    return 'done';
  }
}
