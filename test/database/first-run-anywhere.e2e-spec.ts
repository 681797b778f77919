import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../utils/net';
import { startService, stopService, waitForStdout } from '../utils/run-service';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { ensureBuilt } from '../utils/built';

const isRoot = process.getuid?.() === 0;
if (!isRoot) {
  console.warn('Skipped test/database/first-run-anywhere: it needs root (PostgreSQL then runs as the postgres user)');
}

/**
 * Issue #10: as root, a checkout in a folder the `postgres` user cannot enter (mode 0700) still
 * starts: the binaries and the data folder are staged where PostgreSQL's user can reach them,
 * and no password file is left in the temp folder.
 */
(isRoot ? describe : describe.skip)('npm start as root from a folder of mode 0700', () => {
  let checkout: string;
  let tmp: string;

  beforeAll(() => {
    // A clone of the project inside a 0700 folder: sources copied, node_modules hard-linked
    // (same file system, so it takes a fraction of a second).
    mkdirSync(path.join(PROJECT_ROOT, '.data'), { recursive: true });
    const closed = mkdtempSync(path.join(PROJECT_ROOT, '.data', 'first-run-'));
    chmodSync(closed, 0o700);
    checkout = path.join(closed, 'project');
    mkdirSync(checkout);
    ensureBuilt();
    for (const entry of ['dist', 'src', 'prisma', 'scripts', 'package.json', 'prisma.config.ts', 'tsconfig.json']) {
      cpSync(path.join(PROJECT_ROOT, entry), path.join(checkout, entry), { recursive: true });
    }
    execFileSync('cp', ['-al', path.join(PROJECT_ROOT, 'node_modules'), path.join(checkout, 'node_modules')]);
    // The child's temp folder (staged binaries, password file) is ours to inspect and remove.
    tmp = mkdtempSync(path.join(os.tmpdir(), 'contact-sync-first-run-tmp-'));
    chmodSync(tmp, 0o1777);
  });

  afterAll(() => {
    const link = path.join(checkout, '.data', 'postgres');
    if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) rmSync(path.dirname(readlinkSync(link)), { recursive: true, force: true });
    rmSync(path.dirname(checkout), { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  it('starts, seeds, serves and stops; data reachable from .data/postgres; no password file left', async () => {
    const port = await freePort();
    const service = startService(
      {
        DATABASE_URL: undefined,
        EMBEDDED_PG_DIR: undefined, // the default, .data/postgres in the 0700 checkout
        EMBEDDED_PG_PORT: String(await freePort()),
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        REDIS_URL: undefined,
        TMPDIR: tmp,
      },
      { cwd: checkout },
    );
    try {
      const [, key] = await waitForStdout(service, /API key \(shown only now\): (csk_\S+)/);
      const res = await fetch(`http://127.0.0.1:${port}/api/v2/lists`, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(service.stderr()).toBe('');
    } finally {
      expect(await stopService(service)).toBe(0);
    }
    // The data lives where the postgres user can reach it; the configured path links to it.
    const link = path.join(checkout, '.data', 'postgres');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const data = readlinkSync(link);
    expect(existsSync(path.join(data, 'PG_VERSION'))).toBe(true);
    expect(statSync(data).uid).toBe(Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })));
    // Binaries staged in the (child's) temp folder; no password file left there.
    expect(readdirSync(tmp).filter((f) => f.startsWith('contact-sync-postgres-'))).toHaveLength(1);
    expect(readdirSync(tmp).filter((f) => /pg-password|contact-sync-pw/.test(f))).toEqual([]);

    // A second start finds the same data through the link (no new demo key).
    const again = startService(
      { DATABASE_URL: undefined, EMBEDDED_PG_PORT: String(await freePort()), PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: undefined, TMPDIR: tmp },
      { cwd: checkout },
    );
    try {
      await waitForStdout(again, /its API key is not shown again/);
    } finally {
      expect(await stopService(again)).toBe(0);
    }
  }, 240_000);
});
