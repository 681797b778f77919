/**
 * `npm run studio [-- --port 5556]`: Prisma Studio on the service's database, DATABASE_URL or the
 * embedded one (reused if the service runs, else started here and stopped when Studio exits).
 *
 * Studio comes from Prisma 7's CLI, not the project's 6.19: 6.19's Studio reads the schema through
 * the native Rust query engine, which it downloads and which cannot be had offline (its page stays
 * blank). Prisma 7's Studio talks to PostgreSQL directly. It is fetched from the npm registry on
 * first use (`npm exec`, pinned version) and kept out of node_modules, so that `prisma` there stays
 * the 6.19 CLI that can migrate. It is run outside the project folder so that it does not read
 * prisma.config.ts (written for 6.19).
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config/app-config';
import { DatabaseStartError } from '../database/start-errors';
import { applyMigrations } from '../database/migrations';
import { EmbeddedPostgresError } from '../database/postgres-process';
import { PROJECT_ROOT } from '../database/project-root';
import { openAdminDatabase } from './admin-database';
import { pendingMigrations } from '../database/migrations';

/** Prisma 7's Studio works offline with a plain database URL (checked on 7.10.1). */
const STUDIO_PRISMA_VERSION = '7.10.1';

/** The port the README promises; Prisma 7's Studio would pick 51212. */
const DEFAULT_STUDIO_PORT = 5555;

async function main(args: string[]): Promise<number> {
  const config = loadConfig();
  const database = await openAdminDatabase(config);
  try {
    const pending = await pendingMigrations(database.url);
    if (pending.length > 0 && database.embedded) await applyMigrations(database.url);
    else if (pending.length > 0) {
      throw new DatabaseStartError('studio: the database is not migrated: run "npm run --silent admin -- migrate" first');
    }
    const hasBrowserFlag = args.some((a) => a === '--browser' || a === '-b' || a.startsWith('--browser='));
    const portArg = args.findIndex((a) => a === '--port' || a === '-p' || a.startsWith('--port='));
    const port = portArg === -1 ? DEFAULT_STUDIO_PORT : (args[portArg].split('=')[1] ?? args[portArg + 1]);
    // Studio has no option for the table it opens on; its address can name one.
    process.stderr.write(`Prisma Studio: http://localhost:${port}/#schema=public&table=contacts&view=table\n`);
    const outside = path.join(PROJECT_ROOT, '.data', 'studio');
    mkdirSync(outside, { recursive: true });
    const studio = spawn(
      'npm',
      [
        'exec',
        '--yes',
        `--package=prisma@${STUDIO_PRISMA_VERSION}`,
        '--',
        'prisma',
        'studio',
        '--url',
        database.url,
        ...(hasBrowserFlag ? [] : ['--browser', 'none']),
        ...(portArg === -1 ? ['--port', String(DEFAULT_STUDIO_PORT)] : []),
        ...args,
      ],
      // Its own process group: `npm exec` does not pass signals on to the Studio it started, so
      // stopping means signalling the whole group.
      { cwd: outside, stdio: 'inherit', detached: true, env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1' } },
    );
    // Ctrl+C and SIGTERM are passed on to Studio's process group. Either way, wait
    // for Studio to exit, then stop the embedded server if it was started here.
    const forward = () => {
      if (studio.pid !== undefined) process.kill(-studio.pid, 'SIGTERM');
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    return await new Promise<number>((resolve, reject) => {
      studio.on('error', reject);
      studio.on('exit', (code) => resolve(code ?? 0));
    });
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof ConfigError || error instanceof DatabaseStartError || error instanceof EmbeddedPostgresError;
    const message = known ? (error).message : String((error as Error).message ?? error).split('\n')[0];
    process.stderr.write(`${message.startsWith('studio:') ? message : `studio: ${message}`}\n`);
    process.exit(1);
  },
);
