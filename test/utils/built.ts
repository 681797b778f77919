import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/database/project-root';

// The same test as `npm run admin` makes before running dist/ (scripts/run-built.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { distIsCurrent } = require('../../scripts/dist-state') as { distIsCurrent(root: string, built: string): boolean };

/**
 * Builds dist/ at most once per `npm test` (or jest) run, the first time a test needs a child
 * process: every spawned service and admin command then runs compiled JavaScript, as production
 * does, instead of starting ts-node (about four times the CPU per start: seconds per child on a
 * busy machine, minutes per suite). Jest loads this module afresh in every test file, so the
 * "already checked" mark is a file named after the run (global setup's template database).
 *
 * A dist/ written after the last change of every file it is built from is used as it is: a second
 * run on the same tree (CI's Node 24 run after its Node 20 run) does not build it again.
 */
export function ensureBuilt(): void {
  const marker = builtMarkerOf(process.env.TEST_PG_TEMPLATE ?? `pid-${process.pid}`);
  const main = path.join(PROJECT_ROOT, 'dist', 'main.js');
  const built = () => existsSync(marker) && existsSync(main);
  if (built()) return;
  // With Jest workers (CI: `npm test -- --maxWorkers=2`) two files can get here at once: one
  // builds, holding the lock (mkdir is atomic), and the other waits for its marker. Two `tsc`
  // writing dist/ together, or a service started from a half-written dist/, would fail at random.
  const lock = `${marker}.lock`;
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (built()) return;
    if (tryLock(lock)) break;
    if (Date.now() > deadline) throw new Error(`dist/ is still being built by another worker after 300 s (${lock})`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100); // a synchronous sleep: ensureBuilt is synchronous
  }
  try {
    if (!built()) {
      if (!distIsCurrent(PROJECT_ROOT, main)) execFileSync('npm', ['run', '--silent', 'build'], { cwd: PROJECT_ROOT, stdio: 'pipe' });
      writeFileSync(marker, '');
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The file that marks a run's build (removed by global teardown). */
export function builtMarkerOf(template: string): string {
  return path.join(os.tmpdir(), `contact-sync-built-${template}`);
}
