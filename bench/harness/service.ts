import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { log, round } from './figures';
import { freePort } from './free-port';
import type { BenchSettings } from './settings';

/** The service under load: `node dist/main.js` as its own process, with what the bench reads of it. */
export interface Service {
  port: number;
  baseUrl: string;
  secondsToReady: number;
  /** The process's peak resident memory so far (VmHWM), MiB; null where /proc is missing. */
  peakRssMiB(): number | null;
  /** Its resident memory now (VmRSS), kB. */
  sampleRss(): number | null;
  /** CPU seconds (user + system) the service has used so far, from /proc; null elsewhere. */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

/**
 * The node flags of `npm start` (package.json's start script, `node <flags> dist/main.js`), which the
 * Dockerfile's CMD repeats: the service is measured with the heap settings it runs with.
 */
export function startFlags(root: string = PROJECT_ROOT): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.split(' ').filter(Boolean);
  if (words[0] !== 'node' || words[words.length - 1] !== 'dist/main.js') throw new Error(`package.json's start is not \`node [flags] dist/main.js\`: ${scripts.start}`);
  return words.slice(1, -1);
}

/**
 * Starts the built service (`node dist/main.js` with npm start's flags) on `url` as production runs it, on a free port,
 * with rate limits out of the way and Redis off; answers once /health/ready says 200.
 * `extraEnv` is the only way OTEL_* settings reach it: the bench's own are not passed on.
 */
export async function startService(settings: BenchSettings, url: string, extraEnv: Record<string, string> = {}): Promise<Service> {
  const port = await freePort();
  const started = Date.now();
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  // BENCH_NODE_ARGS after npm start's flags: a flag given in both takes its BENCH_NODE_ARGS value.
  const child: ChildProcess = spawn(process.execPath, [...startFlags(), ...settings.nodeArgs, 'dist/main.js'], {
    cwd: PROJECT_ROOT,
    env: {
      ...inherited,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: settings.logLevel,
      ORG_RATE_LIMIT: '100000000',
      IP_RATE_LIMIT: '100000000',
      REDIS_URL: '',
      // Webhook scenarios deliver to receivers of this process, on 127.0.0.1.
      WEBHOOK_ALLOW_INSECURE: 'true',
      ...extraEnv,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('the service was not ready within 60 s');
    }
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const secondsToReady = round((Date.now() - started) / 1000, 2);
  log(`service ready in ${secondsToReady} s (pid ${child.pid})`);
  const status = (field: string) => {
    try {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return match ? Number(match[1]) : null;
    } catch {
      return null;
    }
  };
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    secondsToReady,
    sampleRss: () => status('VmRSS'),
    cpuSeconds: () => {
      try {
        // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), in clock ticks (100 per second on Linux).
        const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        return null;
      }
    },
    peakRssMiB: () => {
      const kb = status('VmHWM');
      return kb === null ? null : round(kb / 1024, 1);
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
