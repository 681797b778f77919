import { Client } from 'pg';
import type { AppConfig } from '../config/app-config';
import { prepareDatabase } from '../database/database-bootstrap';
import { EMBEDDED_PG } from '../database/embedded-postgres';

export interface AdminDatabase {
  url: string;
  /** Stops the embedded server if this process started it; otherwise does nothing. */
  close(): Promise<void>;
}


/**
 * The database the admin commands and Prisma Studio work on: DATABASE_URL when set (used as it
 * is: no migrations are applied from here); else the embedded one. When the service runs, its
 * embedded server is already up on EMBEDDED_PG_PORT and is used as it is; otherwise it is started
 * here (migrations applied, as the service would) and stopped by `close`.
 */
export async function openAdminDatabase(config: AppConfig, log: (message: string) => void): Promise<AdminDatabase> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, close: () => Promise.resolve() };
  const url = `postgresql://${EMBEDDED_PG.user}:${EMBEDDED_PG.password}@127.0.0.1:${config.EMBEDDED_PG_PORT}/${EMBEDDED_PG.database}`;
  if (await isReachable(url)) return { url, close: () => Promise.resolve() };
  const database = await prepareDatabase(config, log);
  return { url: database.url, close: () => database.stop() };
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
    throw new Error(`Cannot use the embedded database on port ${new URL(url).port}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}
