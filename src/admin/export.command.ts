import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { type AppConfig, connectionTimeouts } from '../config/app-config';
import { Database } from '../database/database';
import { streamExport } from '../exports/export-stream';
import type { PrismaClient } from '../generated/prisma/client';
import { RequestError } from '../errors/request-error';
import { AdminArgumentError } from './admin-arguments';

/**
 * `export --org <orgId> --file <path>`: the organization's contacts as GET /api/v2/contacts/export
 * streams them (NDJSON, one snapshot), written to the file as they are read, through the same
 * streamExport on a one-connection Database of this process. It takes one of the organization's two
 * export slots like any export. Prints { "rows", "feedCursor", "file" }; the cursor is the feed's
 * `after` at the snapshot. A failure leaves the file incomplete and says so (exit 1).
 */
export async function runExportCommand(
  prisma: PrismaClient,
  url: string,
  config: AppConfig,
  command: { org: string; file: string },
): Promise<Record<string, unknown>> {
  const org = await prisma.organization.findUnique({ where: { id: command.org }, select: { id: true } });
  if (!org) throw new AdminArgumentError(`export: no organization with id "${command.org}"`);
  const database = new Database({
    url,
    poolSize: 1,
    ...connectionTimeouts(config),
  });
  const file = path.resolve(command.file);
  const sink = createWriteStream(file);
  try {
    const summary = await streamExport(
      database,
      { organizationId: command.org, filters: { listId: null, suppressed: null, updatedSince: null }, format: 'ndjson' },
      sink,
      () => undefined,
    );
    return { rows: summary.rows, feedCursor: summary.feedCursor, file };
  } catch (error) {
    sink.destroy();
    if (error instanceof RequestError) throw new Error(`export: ${error.message} (the file is incomplete)`, { cause: error });
    throw new Error(`export: ${(error as Error).message} (the file is incomplete)`, { cause: error });
  } finally {
    await database.onModuleDestroy();
  }
}
