import { execFile } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { ensureBuilt } from '../utils/built';

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the admin command line as a real child process: the built `dist/admin/cli.js` (the same
 * code `npm run --silent admin` runs through ts-node, at a quarter of the start-up CPU; the npm
 * script itself is run once by admin-cli.e2e-spec.ts). `env` replaces DATABASE_URL & co; a key set to undefined is removed.
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
