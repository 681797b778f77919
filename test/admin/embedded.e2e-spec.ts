import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { jsonOf, runAdmin } from './run-admin';
import { freePort, isListening } from '../utils/net';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { ensureBuilt } from '../utils/built';
import { failedStart } from '../utils/run-service';

/**
 * Without DATABASE_URL (docs/api.md#running-and-administration): the service's first start seeds demo data and
 * prints a key with ready curl lines; the admin commands reuse the embedded server while the
 * service runs, start and stop it themselves when it does not, and act on the same data.
 */
describe('embedded database: service start, demo data and admin commands', () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  let service: { child: ChildProcess; output: () => string } | undefined;
  let pgPort: number;
  let httpPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'contact-sync-embedded-'));
    chmodSync(dir, 0o755); // as root, PostgreSQL runs as its own user and must reach the folder
    [pgPort, httpPort] = [await freePort(), await freePort()];
    env = {
      DATABASE_URL: undefined,
      EMBEDDED_PG_DIR: path.join(dir, 'pg'),
      EMBEDDED_PG_PORT: String(pgPort),
      PORT: String(httpPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    };
  });
  afterAll(async () => {
    await stopService();
    rmSync(dir, { recursive: true, force: true });
  });

  function startService(): void {
    ensureBuilt();
    const childEnv: NodeJS.ProcessEnv = { ...process.env };
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete childEnv[name];
      else childEnv[name] = value;
    }
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: PROJECT_ROOT,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    service = { child, output: () => output };
  }

  async function waitForOutput(pattern: RegExp, timeoutMs = 90_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(service?.output() ?? '');
      if (match) return match;
      if (service?.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`service output never matched ${String(pattern)}:\n${service?.output()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /**
   * SIGTERM, then SIGKILL if the process has not exited in 15 s (graceful shutdown is tested
   * elsewhere; here the data folder must be free for the next step either way).
   */
  async function stopService(): Promise<void> {
    const child = service?.child;
    service = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    // After a SIGKILL the PostgreSQL server outlives the service: stop it through its pid file.
    try {
      const pid = Number(readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGTERM');
      while (await isListening(pgPort)) await new Promise((resolve) => setTimeout(resolve, 200));
    } catch {
      // no pid file: the server was stopped by the service
    }
  }

  const lists = async (key: string) => {
    const res = await fetch(`http://127.0.0.1:${httpPort}/api/v2/lists`, { headers: { Authorization: `Bearer ${key}` } });
    return { status: res.status, names: res.ok ? ((await res.json()) as { lists: Array<{ name: string }> }).lists.map((l) => l.name) : [] };
  };

  it('a first start on a taken port is one line naming PORT and creates no demo data', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      expect(await failedStart({ ...env, PORT: String(port) })).toMatch(new RegExp(`port ${port} is already in use.*set PORT`));
    } finally {
      blocker.close();
    }
  }, 180_000);

  it('first start: demo data, key and a curl line that works; admin reuses the running server; a second instance is one line', async () => {
    startService();
    const banner = await waitForOutput(/API key \(shown only now\): (csk_\S+)[\s\S]*?(curl -s http\S+\/api\/v2\/lists .*)\n[\s\S]*?curl -s -X POST .*\n/);
    const [, key, curlLine] = banner;
    // The banner is the last thing printed.
    expect(service!.output().trimEnd().split('\n').at(-1)).toMatch(/curl -s -X POST/);
    const orgId = /organization ([0-9a-f-]{36})/.exec(service!.output())![1];

    // The printed GET line, run as printed.
    const curl = await new Promise<string>((resolve, reject) =>
      execFile('sh', ['-c', curlLine], (error, stdout) => (error ? reject(new Error(error.message)) : resolve(stdout))),
    );
    const listed = JSON.parse(curl) as { lists: Array<{ name: string }> };
    expect(listed).toMatchObject({ lists: expect.any(Array) }); // a failure shows the answer the line got
    expect(listed.lists.map((l) => l.name).sort()).toEqual(['Customers', 'Newsletter']);
    expect(await lists(key)).toEqual({ status: 200, names: expect.arrayContaining(['Newsletter']) });

    // The service runs: the admin command connects to its server (and leaves it running).
    const created = jsonOf(await runAdmin(['key', 'create', '--org', orgId], env));
    expect(await lists(String(created.key))).toMatchObject({ status: 200 });
    expect(await isListening(pgPort)).toBe(true);

    // Another service on the same data folder: one line, not "undefined".
    const second = await failedStart({ ...env, EMBEDDED_PG_PORT: String(await freePort()), PORT: String(await freePort()) });
    expect(second).toMatch(/another server already runs on the data folder .*EMBEDDED_PG_DIR/);
    expect(await lists(key)).toMatchObject({ status: 200 }); // the running service is unharmed
    await stopService();

    // The service is stopped: the admin command starts the server, works, and stops it again.
    expect(jsonOf(await runAdmin(['list', 'create', '--org', orgId, '--name', 'Added offline'], env))).toEqual({ id: expect.any(String) });
    expect(await isListening(pgPort)).toBe(false);

    // A later start seeds nothing, says how to get a key, and sees what the admin command wrote.
    startService();
    await waitForOutput(new RegExp(`npm run --silent admin -- key create --org ${orgId}`));
    expect(service!.output()).not.toContain('shown only now');
    expect(await lists(String(created.key))).toEqual({ status: 200, names: ['Newsletter', 'Customers', 'Added offline'] });
    expect(await lists(key)).toMatchObject({ status: 200 }); // the demo key still works
  }, 240_000);
});
