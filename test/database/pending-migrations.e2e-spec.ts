import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { applyMigrations, pendingMigrations } from '../../src/database/migrations';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { createEmptyDatabase, runSql, useTestDatabase } from '../utils/test-database';

// Every process this file's code starts goes through the spy (Prisma's CLI is one).
jest.mock('node:child_process', () => {
  const actual = jest.requireActual<typeof import('node:child_process')>('node:child_process');
  return { ...actual, execFile: jest.fn(actual.execFile) };
});
const spawned = execFile as unknown as jest.Mock;

/** Start-up skips Prisma's CLI (seconds) when `_prisma_migrations` already lists every migration folder. */
describe('pending migrations at start', () => {
  const folders = readdirSync(path.join(PROJECT_ROOT, 'prisma', 'migrations'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const db = useTestDatabase();
  beforeEach(() => spawned.mockClear());

  it('none on a migrated database, and applyMigrations starts no process', async () => {
    expect(folders.length).toBeGreaterThan(0);
    expect(await pendingMigrations(db.url)).toEqual([]);
    expect(await applyMigrations(db.url)).toBe(0);
    expect(spawned).not.toHaveBeenCalled();
  });

  it('a migration not recorded as applied is pending, and applyMigrations runs the CLI for it', async () => {
    await runSql(db.url, `DELETE FROM _prisma_migrations WHERE migration_name = '${folders[folders.length - 1]}'`);
    expect(await pendingMigrations(db.url)).toEqual([folders[folders.length - 1]]);
    // The CLI is not really run here (its migration's tables exist): the spy answers for it.
    spawned.mockImplementationOnce((_file: string, _args: string[], _options: unknown, callback: (error: null, stdout: string, stderr: string) => void) =>
      callback(null, '', ''),
    );
    expect(await applyMigrations(db.url)).toBe(1);
    expect(spawned).toHaveBeenCalledTimes(1);
    expect(spawned.mock.calls[0][1]).toEqual([require.resolve('prisma/build/index.js'), 'migrate', 'deploy']);
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
