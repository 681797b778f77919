import { databaseUrlOn } from '../../src/database/embedded-postgres';
import { freePort } from '../utils/net';
import { failedStart } from '../utils/run-service';
import { createEmptyDatabase, runSql } from '../utils/test-database';
import { ConfigError, loadConfig } from '../../src/config/app-config';
import { startupFailureLine } from '../../src/startup-failure';

/**
 * Issue #10: every start-up failure ends with exit code 1 and exactly one line on stderr saying
 * what is wrong and what to do (no stack trace), a JSON line like every other, and the demo key
 * is never lost. The embedded database's own failures (a first start on a taken port, a second
 * instance on a data folder in use) are in test/admin/embedded.e2e-spec.ts, on the data folder that
 * file initialises anyway.
 */
describe('start-up failures are one clear line', () => {
  const base = { HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: undefined };

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
});
