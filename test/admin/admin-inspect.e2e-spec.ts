import { PrismaPg } from '@prisma/adapter-pg';
import { Client } from 'pg';
import { COMMAND_HELP } from '../../src/admin/admin-arguments';
import { databaseUrlOn } from '../../src/database/embedded-postgres';
import { PrismaClient } from '../../src/generated/prisma/client';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';
import { jsonOf, runAdmin, runAdminInProcess, type AdminRun } from './run-admin';

/**
 * Issue #10: help, the list commands, `migrate`, one error style and an unmigrated database, on
 * databases of their own. Help and the error lines run as real processes of the built CLI; the
 * list commands and `migrate` run the same command line in Jest's process (`admin`,
 * runAdminInProcess: what they print and store, without starting Node and Prisma per command).
 */
describe('admin command line: help, lists, migrate, errors', () => {
  let database: TestDatabase;
  let prisma: PrismaClient;
  const admin = (...args: string[]) => runAdminInProcess(args, { DATABASE_URL: database.url });
  const inChild = (...args: string[]) => runAdmin(args, { DATABASE_URL: database.url });

  beforeAll(async () => {
    database = await createTestDatabase();
    prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await database.drop();
  });

  const oneErrorLine = (run: AdminRun, code: number, pattern: RegExp) => {
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code, stdout: '' });
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
  };

  it('--help explains the tool and every command, without a database', async () => {
    const noDatabase = { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' };
    const tool = await runAdmin(['--help'], noDatabase);
    expect(tool.code).toBe(0);
    for (const command of Object.keys(COMMAND_HELP)) expect(tool.stdout).toContain(`  ${command}`);
    const runs = await Promise.all(
      [['key', 'list', '--help'], ['migrate', '--help'], ['field', 'create', '-h']].map((args) => runAdminInProcess(args, noDatabase)),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(runs[0].stdout).toMatch(/^Usage: npm run --silent admin -- key list --org <orgId>\n.*prefix/s);
    expect(runs[1].stdout).toMatch(/migrate\n.*DATABASE_URL/s);
    expect(runs[2].stdout).toMatch(/field create --org <orgId> --key <key> --type/);
  }, 60_000);

  it('org list, key list, list list and field list show what exists; key list never shows a key or hash', async () => {
    const org = String(jsonOf(await admin('org', 'create', '--name', 'Listed')).id);
    const key = jsonOf(await admin('key', 'create', '--org', org, '--expires-at', '2031-01-01', '--scope', 'admin'));
    const revoked = jsonOf(await admin('key', 'create', '--org', org));
    jsonOf(await admin('key', 'revoke', '--id', String(revoked.id)));
    await prisma.apiKey.update({ where: { id: String(key.id) }, data: { lastUsedAt: new Date('2030-05-05T00:00:00Z') } });
    const list = String(jsonOf(await admin('list', 'create', '--org', org, '--name', 'News')).id);
    jsonOf(await admin('list', 'archive', '--id', list));
    jsonOf(await admin('field', 'create', '--org', org, '--key', 'plan', '--type', 'select', '--options', 'free,pro', '--default', '"free"'));

    const [orgs, keys, lists, fields] = await Promise.all([
      admin('org', 'list'),
      admin('key', 'list', '--org', org),
      admin('list', 'list', '--org', org),
      admin('field', 'list', '--org', org),
    ]);
    expect(jsonOf(orgs).organizations).toContainEqual({ id: org, name: 'Listed', createdAt: expect.any(String) });
    const stored = await prisma.apiKey.findMany({ where: { organizationId: org } });
    expect(jsonOf(keys)).toEqual({
      keys: [
        {
          id: key.id,
          prefix: String(key.key).slice(0, stored.find((k) => k.id === key.id)!.prefix.length),
          scope: 'admin',
          createdAt: expect.any(String),
          lastUsedAt: '2030-05-05T00:00:00.000Z',
          expiresAt: '2031-01-01T00:00:00.000Z',
          revokedAt: null,
        },
        // Without --scope: contacts:write (docs/api.md, "Key scopes").
        { id: revoked.id, prefix: expect.any(String), scope: 'contacts:write', createdAt: expect.any(String), lastUsedAt: null, expiresAt: null, revokedAt: expect.any(String) },
      ],
    });
    for (const row of stored) expect(keys.stdout).not.toContain(row.keyHash);
    expect(keys.stdout).not.toContain(String(key.key));
    expect(jsonOf(lists)).toEqual({ lists: [{ id: list, name: 'News', archived: true, createdAt: expect.any(String) }] });
    expect(jsonOf(fields)).toEqual({
      fields: [{ id: expect.any(String), key: 'plan', type: 'select', required: false, defaultValue: 'free', options: ['free', 'pro'], createdAt: expect.any(String) }],
    });
  }, 90_000);

  it('errors are one line "<command>: <what is wrong>"', async () => {
    const unknownOrg = '00000000-0000-4000-8000-000000000000';
    // Real processes for one exit code 2 and one exit code 1 (what the shell sees); the others in process.
    const runs = await Promise.all([
      admin('key', 'list', '--org', unknownOrg),
      admin('field', 'list'),
      admin('key', 'create', '--org', unknownOrg, '--expires-at', 'soon'),
      inChild('org', 'lst'),
    ]);
    oneErrorLine(runs[0], 2, /^key list: no organization with id/);
    oneErrorLine(runs[1], 2, /^field list: missing option --org$/);
    oneErrorLine(runs[2], 2, /^key create: --expires-at must be/);
    oneErrorLine(runs[3], 2, /^admin: unknown command "org lst"/);
    const config = await runAdminInProcess(['org', 'list'], { DATABASE_URL: 'mysql://x' });
    oneErrorLine(config, 1, /^org list: Invalid configuration: DATABASE_URL=/);
    const unreachable = await runAdmin(['org', 'list'], { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none' });
    oneErrorLine(unreachable, 1, /^org list: database unreachable: nothing accepts connections at 127\.0\.0\.1:1/);
  }, 90_000);

  it('an unmigrated database is one line saying to run migrate; migrate applies the migrations once', async () => {
    const serverUrl = process.env.TEST_PG_SERVER_URL!;
    const name = `unmigrated_${process.pid}`;
    const run = async (sql: string) => {
      const client = new Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(sql).finally(() => client.end());
    };
    await run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await run(`CREATE DATABASE "${name}"`);
    const url = databaseUrlOn(serverUrl, name);
    try {
      oneErrorLine(await runAdminInProcess(['org', 'list'], { DATABASE_URL: url }), 1, /^org list: the database is not migrated \(\d+ migrations? pending\): run "npm run --silent admin -- migrate" first$/);
      const applied = jsonOf(await runAdminInProcess(['migrate'], { DATABASE_URL: url }));
      expect(applied).toEqual({ applied: expect.arrayContaining([expect.stringMatching(/_init$/)]) });
      expect(jsonOf(await runAdminInProcess(['migrate'], { DATABASE_URL: url }))).toEqual({ applied: [] });
      expect(jsonOf(await runAdminInProcess(['org', 'list'], { DATABASE_URL: url }))).toEqual({ organizations: [] });
    } finally {
      await run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  }, 120_000);
});
