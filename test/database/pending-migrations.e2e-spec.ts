import { readdirSync } from 'node:fs';
import path from 'node:path';
import { applyMigrations, pendingMigrations } from '../../src/database/migrations';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { createEmptyDatabase, runSql, useTestDatabase } from '../utils/test-database';

/** Start-up skips Prisma's CLI (seconds) when `_prisma_migrations` already lists every migration folder. */
describe('pending migrations at start', () => {
  const folders = readdirSync(path.join(PROJECT_ROOT, 'prisma', 'migrations'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const db = useTestDatabase();

  it('none on a migrated database, and applyMigrations returns at once', async () => {
    expect(folders.length).toBeGreaterThan(0);
    expect(await pendingMigrations(db.url)).toEqual([]);
    const started = Date.now();
    await applyMigrations(db.url);
    expect(Date.now() - started).toBeLessThan(1000); // the CLI alone takes several seconds
  });

  it('a migration not recorded as applied is pending', async () => {
    await runSql(db.url, `DELETE FROM _prisma_migrations WHERE migration_name = '${folders[folders.length - 1]}'`);
    expect(await pendingMigrations(db.url)).toEqual([folders[folders.length - 1]]);
  });

  it('every migration on a database Prisma never migrated', async () => {
    const empty = await createEmptyDatabase();
    try {
      expect(await pendingMigrations(empty.url)).toEqual(folders);
    } finally {
      await empty.drop();
    }
  });
});
