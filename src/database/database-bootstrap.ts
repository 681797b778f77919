import type { AppConfig } from '../config/app-config';
import { databaseUrlOn, EMBEDDED_PG, ensureDatabase, startEmbeddedPostgres } from './embedded-postgres';
import { checkDatabaseReachable, DatabaseStartError, migrationFailureLine } from './start-errors';
import { applyMigrations } from './migrations';

export interface PreparedDatabase {
  url: string;
  /** True when this process runs the embedded server (and so seeds demo data). */
  embedded: boolean;
  /** The embedded server's data folder (readiness checks it still exists); unset with DATABASE_URL. */
  dataDir?: string;
  stop(): Promise<void>;
}

const EMBEDDED_DATABASE = EMBEDDED_PG.database;

/**
 * Before the app starts: the database named by DATABASE_URL, or an embedded server when it is
 * unset; pending migrations applied (always for the embedded one, else unless MIGRATE_ON_START=false).
 */
export async function prepareDatabase(
  config: AppConfig,
  log: (message: string) => void = () => undefined,
): Promise<PreparedDatabase> {
  if (config.DATABASE_URL) {
    await checkDatabaseReachable(config.DATABASE_URL);
    if (config.MIGRATE_ON_START) await migrate(config.DATABASE_URL, log);
    return { url: config.DATABASE_URL, embedded: false, stop: () => Promise.resolve() };
  }
  log(`Starting embedded PostgreSQL on port ${config.EMBEDDED_PG_PORT} with data in ${config.EMBEDDED_PG_DIR}`);
  const server = await startEmbeddedPostgres({
    dataDir: config.EMBEDDED_PG_DIR,
    port: config.EMBEDDED_PG_PORT,
    persistent: true,
  });
  try {
    await ensureDatabase(server.serverUrl, EMBEDDED_DATABASE);
    const url = databaseUrlOn(server.serverUrl, EMBEDDED_DATABASE);
    await migrate(url, log);
    return { url, embedded: true, dataDir: server.dataDir, stop: () => server.stop() };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/**
 * Migrations, with a line naming how many were applied (none when nothing was pending), and a
 * failure reduced to the one line of Prisma's output that says what failed.
 */
async function migrate(url: string, log: (message: string) => void): Promise<void> {
  try {
    const applied = await applyMigrations(url);
    if (applied > 0) log(`Applied ${applied} pending migration${applied === 1 ? '' : 's'}`);
  } catch (error) {
    throw new DatabaseStartError(
      `migrations failed: ${migrationFailureLine((error as Error).message)} (see prisma/migrations; with DATABASE_URL: fix the database, then run "npm run admin -- migrate")`,
      { cause: error },
    );
  }
}
