import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/database/project-root';

/**
 * Builds dist/ at most once per `npm test` (or jest) run, the first time a test needs a child
 * process: every spawned service and admin command then runs compiled JavaScript, as production
 * does, instead of starting ts-node (about four times the CPU per start: seconds per child on a
 * busy machine, minutes per suite). Jest loads this module afresh in every test file, so the
 * "already built" mark is a file named after the run (global setup's template database).
 */
export function ensureBuilt(): void {
  const marker = builtMarkerOf(process.env.TEST_PG_TEMPLATE ?? `pid-${process.pid}`);
  if (existsSync(marker) && existsSync(path.join(PROJECT_ROOT, 'dist', 'main.js'))) return;
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: PROJECT_ROOT, stdio: 'pipe' });
  writeFileSync(marker, '');
}

/** The file that marks a run's build (removed by global teardown). */
export function builtMarkerOf(template: string): string {
  return path.join(os.tmpdir(), `contact-sync-built-${template}`);
}
