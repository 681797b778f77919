import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { databaseUrlOn } from '../../src/database/embedded-postgres';
import { applyMigrations, pendingMigrations } from '../../src/database/migrations';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';

/** Start-up skips Prisma's CLI (seconds) when `_prisma_migrations` already lists every migration folder. */
describe('pending migrations at start', () => {
  const folders = readdirSync(path.join(PROJECT_ROOT, 'prisma', 'migrations'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  async function sql(url: string, text: string): Promise<void> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  }

  it('none on a migrated database, and applyMigrations returns at once', async () => {
    expect(folders.length).toBeGreaterThan(0);
    expect(await pendingMigrations(db.url)).toEqual([]);
    const started = Date.now();
    await applyMigrations(db.url);
    expect(Date.now() - started).toBeLessThan(1000); // the CLI alone takes several seconds
  });

  it('a migration not recorded as applied is pending', async () => {
    await sql(db.url, `DELETE FROM _prisma_migrations WHERE migration_name = '${folders[folders.length - 1]}'`);
    expect(await pendingMigrations(db.url)).toEqual([folders[folders.length - 1]]);
  });

  it('every migration on a database Prisma never migrated', async () => {
    const serverUrl = process.env.TEST_PG_SERVER_URL as string;
    const name = `contact_sync_empty_${process.pid}`;
    await sql(serverUrl, `CREATE DATABASE "${name}" TEMPLATE template0`);
    try {
      expect(await pendingMigrations(databaseUrlOn(serverUrl, name))).toEqual(folders);
    } finally {
      await sql(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  });
});
