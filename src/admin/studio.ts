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
import { PROJECT_ROOT } from '../database/project-root';
import { openAdminDatabase } from './admin-database';

/** Prisma 7's Studio works offline with a plain database URL (checked on 7.10.1). */
const STUDIO_PRISMA_VERSION = '7.10.1';

async function main(args: string[]): Promise<number> {
  const config = loadConfig();
  const database = await openAdminDatabase(config, (message) => process.stderr.write(`${message}\n`));
  try {
    const hasBrowserFlag = args.some((a) => a === '--browser' || a === '-b' || a.startsWith('--browser='));
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
    process.stderr.write(`${error instanceof ConfigError ? error.message : String((error as Error).stack ?? error)}\n`);
    process.exit(1);
  },
);
