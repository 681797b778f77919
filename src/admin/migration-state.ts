import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { PROJECT_ROOT } from '../database/project-root';

/**
 * The migrations of prisma/migrations that the database has not applied, read with one query
 * (Prisma's own `_prisma_migrations` table) instead of a `prisma migrate status` run, which takes
 * seconds: the admin commands check this before every command.
 */
export async function pendingMigrations(databaseUrl: string): Promise<string[]> {
  const folder = path.join(PROJECT_ROOT, 'prisma', 'migrations');
  const known = readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const client = new Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const table = await client.query<{ exists: boolean }>(`SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS exists`);
    if (!table.rows[0].exists) return known;
    const applied = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const done = new Set(applied.rows.map((r) => r.migration_name));
    return known.filter((name) => !done.has(name));
  } finally {
    await client.end();
  }
}
