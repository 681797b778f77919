import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

export interface ServiceProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null after a signal). */
  exited: Promise<number | null>;
}

/**
 * Starts `src/main.ts` as `npm start` runs `dist/main.js` (same start function, transpiled on the
 * fly because CI does not build). `env` entries set to undefined are removed.
 */
export function startService(env: Record<string, string | undefined>, cwd = PROJECT_ROOT): ServiceProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
    cwd,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
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
