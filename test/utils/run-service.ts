import { spawn, type ChildProcess } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { ensureBuilt } from './built';
import { createOrgOn } from './fixtures';
import { HARNESS_DEFAULTS } from './harness-defaults';
import { freePort, isListening } from './net';
import { createTestDatabase, type TestDatabase } from './test-database';
import { waitUntil } from './wait-until';

/** Re-exported: the e2e files import it from here with the service helpers. */
export { waitUntil };

/** The one way tests spawn the service: the built `dist/main.js`, as `npm start` runs it. */
export interface ServiceProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** stdout and stderr interleaved, in the order they arrived. */
  output(): string;
  /** Resolves with the exit code (null after a signal). */
  exited: Promise<number | null>;
  /** Resolves with the exit code and the signal. */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `node dist/main.js` (built once per test run: test/utils/built.ts) in `cwd` (the project;
 * a copy of it must hold dist/ too), with HARNESS_DEFAULTS unless `env` sets them. `env` entries set
 * to undefined are removed.
 */
export function startService(env: Record<string, string | undefined>, options: { cwd?: string } = {}): ServiceProcess {
  ensureBuilt();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...HARNESS_DEFAULTS };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  const child = spawn(process.execPath, ['dist/main.js'], { cwd: options.cwd ?? PROJECT_ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let both = '';
  child.stdout.on('data', (chunk: Buffer) => ((out += chunk.toString()), (both += chunk.toString())));
  child.stderr.on('data', (chunk: Buffer) => ((err += chunk.toString()), (both += chunk.toString())));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, output: () => both, exit, exited: exit.then(({ code }) => code) };
}

/**
 * A start that must fail (issue #10): exit code 1 and exactly one line on stderr, a JSON line in
 * pino's format whose msg is one sentence for the operator, no stack frame. Resolves with the msg.
 */
export async function failedStart(env: Record<string, string | undefined>): Promise<string> {
  const service = startService({ HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: undefined, ...env });
  const code = await service.exited;
  expect({ code, stderr: service.stderr() }).toEqual({ code: 1, stderr: expect.any(String) });
  const lines = service.stderr().trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0]) as Record<string, unknown>;
  expect(line).toEqual({ level: 60, time: expect.any(Number), pid: service.child.pid, hostname: expect.any(String), context: 'Main', msg: expect.any(String) });
  const msg = line.msg as string;
  expect(msg).toMatch(/^Contact Sync cannot start: /);
  expect(msg).not.toMatch(/\bat .+:\d+:\d+/); // no stack frame
  expect(msg).not.toContain('\n');
  return msg;
}

/** The production process with the settings the shutdown and log tests run it with. */
export function startBuiltService(env: Record<string, string>): ServiceProcess {
  return startService({ LOG_LEVEL: 'info', MIGRATE_ON_START: 'false', HOST: '127.0.0.1', ...env });
}


/** Waits until stdout matches (or fails with everything printed when the process exits first). */
export async function waitForStdout(service: ServiceProcess, pattern: RegExp, timeoutMs = 120_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(service.stdout());
    if (match) return match;
    if (service.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`output never matched ${String(pattern)}:\n${service.stdout()}\n${service.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** SIGTERM and wait; SIGKILL after 20 s so a stuck process cannot hold the test's folders. */
export async function stopService(service: ServiceProcess): Promise<number | null> {
  if (service.child.exitCode !== null) return service.exited;
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 20_000);
  const code = await service.exited;
  clearTimeout(timer);
  return code;
}

/**
 * For a file that tests the production process: gives the file a database of its
 * own, kills a service a test left running (after each test) and drops the database at the end.
 */
export function useBuiltService() {
  const built = {
    database: undefined as unknown as TestDatabase,
    service: undefined as ServiceProcess | undefined,
    /** `node dist/main.js` on the file's database. */
    start(env: Record<string, string>): ServiceProcess {
      built.service = startBuiltService({ DATABASE_URL: built.database.url, ...env });
      return built.service;
    },
    /** start() on a free port, resolved once it listens. */
    async listening(env: Record<string, string> = {}): Promise<{ service: ServiceProcess; port: number }> {
      const port = await freePort();
      const service = built.start({ PORT: String(port), ...env });
      await waitUntil('the service listens', () => service.output().includes('listening') && isListening(port), 90_000);
      return { service, port };
    },
    /** A new organization with a key and a list, on the file's database. */
    async org(): Promise<{ key: string; listId: string }> {
      const org = await createOrgOn(built.database.url, { lists: ['News'] });
      return { key: org.apiKey, listId: org.lists[0].id };
    },
  };
  beforeAll(async () => {
    ensureBuilt();
    built.database = await createTestDatabase();
  });
  afterEach(() => {
    const child = built.service?.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    built.service = undefined;
  });
  afterAll(async () => {
    await built.database?.drop();
  });
  return built;
}
