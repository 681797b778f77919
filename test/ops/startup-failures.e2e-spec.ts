import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { databaseUrlOn, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { freePort } from '../utils/net';
import { startService, stopService, waitForStdout } from '../utils/run-service';
import { createEmptyDatabase, runSql } from '../utils/test-database';
import { ConfigError, loadConfig } from '../../src/config/app-config';
import { startupFailureLine } from '../../src/startup-failure';

/**
 * Issue #10: every start-up failure ends with exit code 1 and exactly one line on stderr saying
 * what is wrong and what to do (no stack trace), a JSON line like every other, and the demo key
 * is never lost.
 */
describe('start-up failures are one clear line', () => {
  const base = { HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: undefined };

  async function failedStart(env: Record<string, string | undefined>): Promise<string> {
    const service = startService({ ...base, ...env });
    const code = await service.exited;
    expect({ code, stderr: service.stderr() }).toEqual({ code: 1, stderr: expect.any(String) });
    const lines = service.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    // A JSON line in the format of every other (pino's), its msg the sentence for the operator.
    const line = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(line).toEqual({ level: 60, time: expect.any(Number), pid: service.child.pid, hostname: expect.any(String), context: 'Main', msg: expect.any(String) });
    const msg = line.msg as string;
    expect(msg).toMatch(/^Contact Sync cannot start: /);
    expect(msg).not.toMatch(/\bat .+:\d+:\d+/); // no stack frame
    expect(msg).not.toContain('\n');
    return msg;
  }

  // One process proves the path of every configuration error (exit 1, one JSON line); which
  // variable and value the line names is loadConfig's message, checked for the others in process.
  it('a bad PORT=eighty names the variable and its value', async () => {
    expect(await failedStart({ PORT: 'eighty' })).toContain('Invalid configuration: PORT="eighty"');
  }, 60_000);

  it.each([
    ['ORG_RATE_LIMIT', '-5'],
    ['DATABASE_URL', 'mysql://nope'],
  ])('a bad %s=%s names the variable and its value', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ ...process.env, ...base, [name]: value });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(startupFailureLine(error, { port: '3000', host: '127.0.0.1' })).toBe(`Contact Sync cannot start: ${(error as Error).message}`);
    expect((error as Error).message).toContain(`Invalid configuration: ${name}="${value}"`);
  });

  it('a database nobody answers on says so and what to fix', async () => {
    const port = await freePort();
    const line = await failedStart({ DATABASE_URL: `postgresql://postgres:secret@127.0.0.1:${port}/app`, PORT: String(await freePort()) });
    expect(line).toMatch(new RegExp(`database unreachable: nothing accepts connections at 127\\.0\\.0\\.1:${port}: .*DATABASE_URL`));
    expect(line).not.toContain('secret');
  }, 60_000);

  it('a missing database is named', async () => {
    const url = databaseUrlOn(process.env.TEST_PG_SERVER_URL!, `missing_${process.pid}`);
    const line = await failedStart({ DATABASE_URL: url, PORT: String(await freePort()) });
    expect(line).toMatch(new RegExp(`database missing: .* no database "missing_${process.pid}": create it`));
  }, 60_000);

  it('failing migrations are one line with Prisma\'s reason', async () => {
    // A database whose tables clash with the first migration.
    const clash = await createEmptyDatabase('clash');
    try {
      await runSql(clash.url, 'CREATE TABLE organizations (x int)');
      const line = await failedStart({ DATABASE_URL: clash.url, PORT: String(await freePort()) });
      expect(line).toMatch(/migrations failed: Error: P3005 The database schema is not empty/);
    } finally {
      await clash.drop();
    }
  }, 120_000);

  // One data folder for both tests (initdb is the costly part of an embedded start): the second
  // runs its own server on the folder the first left behind, or initialises it when run alone.
  describe('embedded database', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'contact-sync-startup-'));
      chmodSync(dir, 0o755);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('a first start on a taken port is one line naming PORT and creates no demo data, so the next start still shows the key', async () => {
      const env = { DATABASE_URL: undefined, EMBEDDED_PG_DIR: path.join(dir, 'pg'), EMBEDDED_PG_PORT: String(await freePort()) };
      const blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const { port } = blocker.address() as net.AddressInfo;
      try {
        expect(await failedStart({ ...env, PORT: String(port) })).toMatch(new RegExp(`port ${port} is already in use.*set PORT`));
      } finally {
        blocker.close();
      }
      const service = startService({ ...base, ...env, PORT: String(await freePort()) });
      try {
        await waitForStdout(service, /API key \(shown only now\): csk_\S+/);
        // The banner is the last thing printed.
        expect(service.stdout().trimEnd().split('\n').at(-1)).toMatch(/curl -s -X POST/);
      } finally {
        expect(await stopService(service)).toBe(0);
      }
    }, 180_000);

    it('a second instance on the same data folder is one line, not "undefined"', async () => {
      const first: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: true });
      try {
        const line = await failedStart({
          DATABASE_URL: undefined,
          EMBEDDED_PG_DIR: path.join(dir, 'pg'),
          EMBEDDED_PG_PORT: String(await freePort()),
          PORT: String(await freePort()),
        });
        expect(line).toMatch(/another server already runs on the data folder .*EMBEDDED_PG_DIR/);
      } finally {
        await first.stop();
      }
    }, 120_000);
  });
});
