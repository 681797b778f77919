import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestApp } from '../utils/test-app';
import { MetricsService } from '../../src/metrics/metrics.service';

import { isListening } from '../utils/net';

export { freePort, portOf, sendHeadersOnly, type RawResponse } from '../utils/net';

export const REDIS_URL = process.env.REDIS_URL;
export const REDIS_SERVER_BIN = '/usr/bin/redis-server';

/** `describe` that is skipped, with a visible message, when the condition is not met. */
export function describeIf(condition: boolean, skipMessage: string): jest.Describe {
  if (!condition) {
    // Straight to stderr: Jest drops console output of a suite whose tests were all skipped.
    process.stderr.write(`\n[SKIPPED] ${skipMessage}\n`);
    return describe.skip;
  }
  return describe;
}

export async function refusals(t: TestApp, scope: 'org' | 'ip'): Promise<number> {
  const metric = await t.app.get(MetricsService).rateLimitRefusals.get();
  return metric.values.find((v) => v.labels.scope === scope)?.value ?? 0;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A redis-server owned by one test file: no persistence, on a free port, started and killed here. */
export class OwnRedis {
  private process?: ChildProcess;
  constructor(readonly port: number) {}

  static available(): boolean {
    return existsSync(REDIS_SERVER_BIN);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(REDIS_SERVER_BIN, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.process = child;
    for (let i = 0; i < 100; i++) {
      if (await isListening(this.port)) return;
      await sleep(50);
    }
    throw new Error('redis-server did not start');
  }

  async kill(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.process = undefined;
  }

  pause(): void {
    this.process?.kill('SIGSTOP');
  }

  resume(): void {
    this.process?.kill('SIGCONT');
  }
}

