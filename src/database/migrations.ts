import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './project-root';

const run = promisify(execFile);

/**
 * Applies pending migrations with Prisma's own `migrate deploy` (WebAssembly schema engine, see
 * prisma.config.ts), so the service, the tests and an operator all apply them the same way.
 */
export async function applyMigrations(databaseUrl: string): Promise<void> {
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
}
