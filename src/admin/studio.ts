/**
 * `npm run studio [-- --port 5556]`: Prisma Studio on the service's database, DATABASE_URL or the
 * embedded one (reused if the service runs, else started here and stopped when Studio exits).
 * Studio runs offline through prisma.config.ts (WebAssembly engine, pg adapter).
 */
import { spawn } from 'node:child_process';
import { ConfigError, loadConfig } from '../config/app-config';
import { PROJECT_ROOT } from '../database/project-root';
import { openAdminDatabase } from './admin-database';

async function main(args: string[]): Promise<number> {
  const config = loadConfig();
  const database = await openAdminDatabase(config, (message) => process.stderr.write(`${message}\n`));
  try {
    const cli = require.resolve('prisma/build/index.js');
    const hasBrowserFlag = args.some((a) => a === '--browser' || a === '-b' || a.startsWith('--browser='));
    const studio = spawn(process.execPath, [cli, 'studio', ...(hasBrowserFlag ? [] : ['--browser', 'none']), ...args], {
      cwd: PROJECT_ROOT,
      stdio: 'inherit',
      env: { ...process.env, DATABASE_URL: database.url, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
    });
    // Ctrl+C reaches Studio too (same process group); SIGTERM is passed on. Either way, wait
    // for Studio to exit, then stop the embedded server if it was started here.
    const forward = (signal: NodeJS.Signals) => () => studio.kill(signal);
    process.on('SIGINT', () => undefined);
    process.on('SIGTERM', forward('SIGTERM'));
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
