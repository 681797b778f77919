import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { PROJECT_ROOT } from './project-root';

const run = promisify(execFile);

/**
 * Applies pending migrations with Prisma's own `migrate deploy` (WebAssembly schema engine, see
 * prisma.config.ts), so the service, the tests and an operator all apply them the same way.
 * The CLI takes seconds to start; when every migration folder is already recorded as applied in
 * `_prisma_migrations` (one query) it is not run at all. Returns how many were pending (and so
 * applied): 0 when none was.
 */
export async function applyMigrations(databaseUrl: string): Promise<number> {
  const pending = await pendingMigrations(databaseUrl);
  if (pending.length === 0) return 0;
  const cli = require.resolve('prisma/build/index.js');
  try {
    await run(process.execPath, [cli, 'migrate', 'deploy'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      maxBuffer: 10 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`prisma migrate deploy failed:\n${stderr || stdout || String(error)}`, { cause: error });
  }
  return pending.length;
}

/**
 * Migration folders not recorded as applied (all of them on a database Prisma never migrated), in
 * one query instead of a `prisma migrate status` run (seconds): the start and every admin command
 * check it.
 */
export async function pendingMigrations(databaseUrl: string): Promise<string[]> {
  const folder = path.join(PROJECT_ROOT, 'prisma', 'migrations');
  const names = readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const client = new Client({ connectionString: databaseUrl });
  client.on('error', () => undefined); // a dropped connection surfaces as the query's error
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT migration_name AS name FROM _prisma_migrations
       WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Set(rows.map((row) => row.name));
    return names.filter((name) => !applied.has(name));
  } catch (error) {
    // No migrations table yet: everything is pending (the CLI creates it).
    if ((error as { code?: string }).code === '42P01') return names;
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}
