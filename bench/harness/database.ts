import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { databaseUrlOn, ensureDatabase, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { applyMigrations } from '../../src/database/migrations';
import type { Fixtures } from './fixtures';
import { freePort } from './free-port';
import type { BenchSettings } from './settings';

export interface BenchDatabase {
  url: string;
  stop(): Promise<void>;
}

/** What a kept data folder (BENCH_DATA_DIR) holds besides the server: state.json. */
export interface KeptState {
  fixtures?: Fixtures;
  existing?: number;
  listingLists?: Record<string, string>;
  storedAnswers?: number;
  eraseRuns?: number;
}

/** The kept state of BENCH_DATA_DIR (empty without one); `save` writes it back. */
export function keptState(settings: BenchSettings): { state: KeptState; save(): void } {
  const file = settings.dataDir ? path.join(path.resolve(settings.dataDir), 'state.json') : null;
  const state: KeptState = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as KeptState) : {};
  return {
    state,
    save: () => {
      if (file) writeFileSync(file, JSON.stringify(state, null, 2));
    },
  };
}

/**
 * A migrated database for this run: a new one on DATABASE_URL's server (dropped at the end), else
 * an embedded PostgreSQL started here with pg_stat_statements preloaded (statements per request).
 * With BENCH_DATA_DIR the embedded server's data folder and the bench database are kept there, and
 * a later run reuses them (migrations are applied as usual).
 */
export async function freshDatabase(settings: BenchSettings): Promise<BenchDatabase> {
  const name = `contact_sync_bench_${process.pid}_${Date.now()}`;
  const keepDir = settings.dataDir ? path.resolve(settings.dataDir) : null;
  if (process.env.DATABASE_URL) {
    const serverUrl = databaseUrlOn(process.env.DATABASE_URL, 'postgres');
    await ensureDatabase(serverUrl, name);
    const url = databaseUrlOn(serverUrl, name);
    await applyMigrations(url);
    return { url, stop: () => sql(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
  }
  const parent = keepDir ?? mkdtempSync(path.join(os.tmpdir(), 'contact-sync-bench-'));
  const kept = keepDir !== null && existsSync(path.join(keepDir, 'pg'));
  if (keepDir) mkdirSync(keepDir, { recursive: true });
  chmodSync(parent, 0o755); // as root, PostgreSQL runs as its own user and must reach the folder
  const dataDir = path.join(parent, 'pg');
  const port = await freePort();
  let server: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir, port, persistent: true });
  const keptName = 'contact_sync_bench_kept';
  if (kept) {
    // The settings below were kept by ALTER SYSTEM; the bench database and its data too.
    await ensureDatabase(server.serverUrl, keptName);
    const keptUrl = databaseUrlOn(server.serverUrl, keptName);
    try {
      await applyMigrations(keptUrl);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return { url: keptUrl, stop: () => server.stop() };
  }
  // pg_stat_statements needs preloading: set it and restart once.
  await sql(server.serverUrl, `ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
  // With --existing, a production-like buffer cache instead of the development default: the
  // existing contacts and their indexes should fit, as they would on a production server.
  if (settings.existing > 0) await sql(server.serverUrl, `ALTER SYSTEM SET shared_buffers = '${settings.sharedBuffers}'`);
  await server.stop();
  server = await startEmbeddedPostgres({ dataDir, port, persistent: true });
  const database = keepDir ? keptName : name;
  await ensureDatabase(server.serverUrl, database);
  const url = databaseUrlOn(server.serverUrl, database);
  await applyMigrations(url);
  return {
    url,
    stop: async () => {
      await server.stop();
      if (!keepDir) rmSync(parent, { recursive: true, force: true });
    },
  };
}

/** Runs `work` with a connected pg Client on `url`, ended afterwards. */
export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function sql(url: string, text: string): Promise<void> {
  await withClient(url, (client) => client.query(text));
}

export async function serverVersion(url: string): Promise<string> {
  return withClient(url, async (client) => (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v);
}
