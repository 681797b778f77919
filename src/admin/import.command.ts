import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { LoggerService } from '@nestjs/common';
import { type AppConfig, connectionTimeouts } from '../config/app-config';
import { ContactsPipelineService } from '../contacts/contacts-pipeline.service';
import { ContactsRepository } from '../contacts/contacts.repository';
import { CustomFieldsRepository } from '../custom-fields/custom-fields.repository';
import { Database } from '../database/database';
import { PrismaService } from '../database/prisma.service';
import { RequestError } from '../errors/request-error';
import { EventsRepository } from '../events/events.repository';
import { fileStream } from '../imports/import-upload';
import type { ImportView } from '../imports/import-view';
import { ImportWorker } from '../imports/import-worker.service';
import { ImportsService } from '../imports/imports.service';
import { MetricsService } from '../metrics/metrics.service';
import { ErasureSecrets } from '../suppressions/erasure-secrets';
import { AdminArgumentError, type AdminCommand } from './admin-arguments';

/** How often the import is read back while the command waits (and the bar is drawn). */
const POLL_MS = 250;
const BAR_WIDTH = 30;
const ENDED: ReadonlySet<string> = new Set(['completed', 'cancelled', 'failed']);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ImportCommandIo {
  /** One line of stderr (the worker's warnings). */
  err(text: string): void;
  /** Draws the progress bar: stderr is a terminal. */
  progress: boolean;
}

/**
 * `import --org <orgId> --file <path> [--format csv|ndjson]`: the file becomes an import as POST
 * /api/v2/imports makes one, in this process, through the imports module's own ImportsService
 * (fileStream decodes a `.gz` file as the upload decodes `Content-Encoding: gzip`; IMPORT_MAX_BYTES
 * and IMPORT_MAX_ROWS hold). Then it is processed here by an ImportWorker that claims this import
 * only, under the same lease and IMPORT_CONCURRENCY as the service's instances (an import of the
 * organization already running keeps this one queued; an instance of the service may take it
 * first, and the command then waits for it). With IMPORT_PROCESSING=false the service's instances
 * process it. Returns the import as GET /api/v2/imports/{id} shows it once it ended. A file the
 * upload refuses (CSV header, size, no row) is a bad argument.
 */
export async function runImportCommand(
  admin: PrismaService,
  url: string,
  config: AppConfig,
  command: Extract<AdminCommand, { command: 'import' }>,
  io: ImportCommandIo,
): Promise<ImportView> {
  const org = await admin.organization.findUnique({ where: { id: command.org }, select: { id: true } });
  if (!org) throw new AdminArgumentError(`import: no organization with id "${command.org}"`);
  const file = path.resolve(command.file);
  const size = await stat(file).then(
    (s) => (s.isFile() ? s.size : undefined),
    () => undefined,
  );
  if (size === undefined) throw new AdminArgumentError(`import: --file ${JSON.stringify(command.file)} is not a file that can be read`);

  // The upload's (or a chunk's) transaction, the reads of the progress, and Prisma's reads beside them.
  const database = new Database({
    url,
    poolSize: 3,
    ...connectionTimeouts(config),
  });
  const prisma = new PrismaService(database);
  const fields = new CustomFieldsRepository(prisma, database, new EventsRepository(database));
  const imports = new ImportsService(database, fields, config);
  const secrets = new ErasureSecrets(prisma);
  const pipeline = new ContactsPipelineService(database, new ContactsRepository(database), new MetricsService(), secrets);
  const worker = new ImportWorker(database, fields, pipeline, secrets, config, stderrLogger(io));
  const bar = io.progress ? new ProgressBar(io.err) : undefined;
  try {
    const source = createReadStream(file);
    const drawing = bar && setInterval(() => bar.uploading(source.bytesRead, size), POLL_MS);
    let view: ImportView;
    try {
      view = await imports.store(fileStream(source, command.gzip ? 'gzip' : undefined, imports.uploadLimits()), {
        organizationId: command.org,
        requestId: randomUUID(),
        clientRequestId: null,
        format: command.format,
        overwrite: false,
        dryRun: false,
      });
    } catch (error) {
      if (error instanceof RequestError) throw new AdminArgumentError(`import: ${error.message}`, { cause: error });
      throw error;
    } finally {
      clearInterval(drawing);
    }
    const { id } = view;
    // Drawn while this process works on a chunk too.
    const reading = bar && setInterval(() => void imports.get(command.org, id).then((v) => bar.importing(v), () => undefined), POLL_MS);
    try {
      for (;;) {
        if (config.IMPORT_PROCESSING) await worker.processOne(id);
        view = await imports.get(command.org, id);
        bar?.importing(view);
        if (ENDED.has(view.status)) return view;
        await sleep(POLL_MS);
      }
    } finally {
      clearInterval(reading);
    }
  } finally {
    bar?.end();
    await worker.onModuleDestroy();
    await prisma.$disconnect();
    await database.onModuleDestroy();
  }
}

/** The worker's warnings on stderr, one line each: stdout carries only the JSON. */
function stderrLogger(io: ImportCommandIo): LoggerService {
  const line = (level: string) => (message: unknown) => io.err(`import: ${level}: ${String(message)}\n`);
  return { log: () => undefined, warn: line('warning'), error: line('error') };
}

/** One line on a terminal, redrawn in place (`\r`), ended with a newline. */
class ProgressBar {
  private drawn = false;
  private ended = false;

  constructor(private readonly write: (text: string) => void) {}

  uploading(bytes: number, total: number): void {
    this.draw(`uploading ${bar(bytes, total)} ${mib(bytes)}/${mib(total)} MiB`);
  }

  importing(view: ImportView): void {
    this.draw(`${view.status.padEnd(9)} ${bar(view.processed, view.rows)} ${view.processed}/${view.rows} rows, ${view.counts.failed} failed`);
  }

  end(): void {
    if (this.drawn) this.write('\n');
    this.ended = true;
  }

  private draw(text: string): void {
    if (this.ended) return;
    this.drawn = true;
    // Cleared to the end of the line, so a shorter line leaves nothing of the one before.
    this.write(`\r${text}\u001b[K`);
  }
}

function bar(done: number, total: number): string {
  const share = total > 0 ? Math.min(1, done / total) : 1;
  const full = Math.round(share * BAR_WIDTH);
  return `[${'#'.repeat(full)}${'.'.repeat(BAR_WIDTH - full)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
