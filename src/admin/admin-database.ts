import { Client } from 'pg';
import type { AppConfig } from '../config/app-config';
import { checkDatabaseReachable, DatabaseStartError, explainConnectError } from '../database/start-errors';
import { databaseUrlOn, EMBEDDED_PG, ensureDatabase, startEmbeddedPostgres } from '../database/embedded-postgres';

export interface AdminDatabase {
  url: string;
  /** Stops the embedded server if this process started it; otherwise does nothing. */
  close(): Promise<void>;
}


/**
 * The database the admin commands and Prisma Studio work on: DATABASE_URL when set (checked, used
 * as it is); else the embedded one. When the service runs, its embedded server is already up on
 * EMBEDDED_PG_PORT and is used as it is; otherwise it is started here and stopped by `close`.
 * Migrations are the caller's business (cli.ts: `migrate`, or the embedded database's own).
 */
export async function openAdminDatabase(config: AppConfig): Promise<AdminDatabase & { embedded: boolean }> {
  if (config.DATABASE_URL) {
    await checkDatabaseReachable(config.DATABASE_URL);
    return { url: config.DATABASE_URL, embedded: false, close: () => Promise.resolve() };
  }
  const url = `postgresql://${EMBEDDED_PG.user}:${EMBEDDED_PG.password}@127.0.0.1:${config.EMBEDDED_PG_PORT}/${EMBEDDED_PG.database}`;
  if (await isReachable(url)) return { url, embedded: true, close: () => Promise.resolve() };
  const server = await startEmbeddedPostgres({ dataDir: config.EMBEDDED_PG_DIR, port: config.EMBEDDED_PG_PORT, persistent: true });
  try {
    await ensureDatabase(server.serverUrl, EMBEDDED_PG.database);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url: databaseUrlOn(server.serverUrl, EMBEDDED_PG.database), embedded: true, close: () => server.stop() };
}

/** True when a server answers on the URL; false when nothing listens (the service is not running). */
async function isReachable(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'ECONNREFUSED') return false;
    // Something answers but refuses us (wrong server on the port, database missing): say so.
    throw new DatabaseStartError(`embedded database on port ${new URL(url).port}: ${explainConnectError(error, url)}`, {
      cause: error,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}
