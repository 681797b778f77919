import { execFile } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { runAdminCommandLine } from '../../src/admin/admin-command-line';
import { ensureBuilt } from '../utils/built';

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the admin command line as a real child process: the built `dist/admin/cli.js`, which
 * `npm run --silent admin` runs too (the npm script itself is run once by admin-cli.e2e-spec.ts).
 * `env` replaces DATABASE_URL & co; a key set to undefined is removed.
 */
export function runAdmin(args: string[], env: Record<string, string | undefined>): Promise<AdminRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
  ensureBuilt();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['dist/admin/cli.js', ...args],
      { cwd: PROJECT_ROOT, env: childEnv, timeout: 90_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The same command line run in Jest's process (src/admin/admin-command-line.ts, what cli.ts runs):
 * the same output, exit code and error line without starting Node, Prisma and its query compiler
 * again for every command. For tests that check what a command prints and stores; what only a
 * real process shows (stdout kept clean of library logs, the exit code the shell sees, `npm run`)
 * stays with runAdmin.
 */
export async function runAdminInProcess(args: string[], env: Record<string, string | undefined>): Promise<AdminRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
  let stdout = '';
  let stderr = '';
  const code = await runAdminCommandLine(args, { out: (text) => (stdout += text), err: (text) => (stderr += text), env: childEnv });
  return { code, stdout, stderr };
}

/** The one JSON object a successful run printed; fails the test if stdout holds anything else. */
export function jsonOf(run: AdminRun): Record<string, unknown> {
  if (run.code !== 0) throw new Error(`admin exited ${run.code}: ${run.stderr}`);
  const lines = run.stdout.split('\n');
  // Exactly one line plus the final newline: nothing else on stdout.
  expect(lines).toHaveLength(2);
  expect(lines[1]).toBe('');
  const value: unknown = JSON.parse(lines[0]);
  expect(value).toEqual(expect.any(Object));
  expect(Array.isArray(value)).toBe(false);
  return value as Record<string, unknown>;
}
