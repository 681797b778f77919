import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { PrismaClient } from '../../src/generated/prisma/client';
import { ensureBuilt } from '../utils/built';
import { createTestApp, type TestApp } from '../utils/test-app';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';
import { jsonOf, runAdmin, runAdminInProcess, type AdminRun } from './run-admin';

// The admin commands (docs/api.md#running-and-administration) on a database of their own. What only the process shows
// (the npm script, stdout holding nothing but the JSON, exit codes and the one stderr line of every refusal) runs as
// child processes of the built CLI (`inChild`); what a command prints and stores is checked on the same command line run
// in Jest's process (`admin`: test/admin/run-admin.ts, runAdminInProcess), without starting Node and Prisma per command.
jest.setTimeout(90_000);

describe('admin command line (DATABASE_URL)', () => {
  let database: TestDatabase;
  let prisma: PrismaClient;
  let t: TestApp;
  const admin = (...args: string[]) => runAdminInProcess(args, { DATABASE_URL: database.url });
  const inChild = (...args: string[]) => runAdmin(args, { DATABASE_URL: database.url });
  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
  const listsWith = (key: string) => t.http().get('/api/v2/lists').set('Authorization', `Bearer ${key}`);

  beforeAll(async () => {
    database = await createTestDatabase();
    prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
    t = await createTestApp({}, { database });
  });
  afterAll(async () => {
    await t.close();
    await prisma.$disconnect();
    await database.drop();
  });

  async function createOrg(name = 'Acme'): Promise<string> {
    return String(jsonOf(await admin('org', 'create', '--name', name)).id);
  }

  it('the documented command, `npm run --silent admin -- org create`, runs the built CLI', async () => {
    ensureBuilt(); // once per test run, under the lock that keeps two builds from writing dist/ at once
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn('npm', ['run', '--silent', 'admin', '--', 'org', 'create', '--name', 'Via npm'], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, DATABASE_URL: database.url },
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.once('exit', (code) => resolve({ code, stdout }));
    });
    expect(run.code).toBe(0);
    const id = String(jsonOf({ code: 0, stdout: run.stdout, stderr: '' }).id);
    expect(await prisma.organization.findUnique({ where: { id } })).toMatchObject({ name: 'Via npm' });
  });

  it('org create prints { id } of a new organization (a real process: nothing else on stdout)', async () => {
    const out = jsonOf(await inChild('org', 'create', '--name', 'Acme Inc'));
    expect(Object.keys(out)).toEqual(['id']);
    expect(await prisma.organization.findUnique({ where: { id: String(out.id) } })).toMatchObject({ name: 'Acme Inc' });
  });

  it('key create prints { id, key }; only the SHA-256 is stored and the key authenticates until revoked', async () => {
    const org = await createOrg();
    const created = jsonOf(await admin('key', 'create', '--org', org));
    expect(Object.keys(created).sort()).toEqual(['id', 'key']);
    const key = String(created.key);
    const row = await prisma.apiKey.findUniqueOrThrow({ where: { id: String(created.id) } });
    expect(row).toMatchObject({ organizationId: org, keyHash: sha256(key), expiresAt: null, revokedAt: null });
    expect(JSON.stringify(row)).not.toContain(key); // no column holds the plaintext
    await listsWith(key).expect(200);

    const revoked = jsonOf(await admin('key', 'revoke', '--id', String(created.id)));
    expect(Object.keys(revoked).sort()).toEqual(['id', 'revokedAt']);
    const after = await prisma.apiKey.findUniqueOrThrow({ where: { id: String(created.id) } });
    expect(revoked).toEqual({ id: created.id, revokedAt: after.revokedAt?.toISOString() });
    await listsWith(key).expect(401);

    // Revoking again is harmless and keeps the first revocation time.
    expect(jsonOf(await admin('key', 'revoke', '--id', String(created.id)))).toEqual(revoked);
  });

  it('key create --expires-at: a past time is accepted (the key is already expired), a future one works', async () => {
    const org = await createOrg();
    const [past, future, zoned] = await Promise.all([
      admin('key', 'create', '--org', org, '--expires-at', '2020-01-02T03:04:05Z'),
      admin('key', 'create', '--org', org, '--expires-at', '2999-12-31'),
      admin('key', 'create', '--org', org, '--expires-at', '2030-06-01T12:00:00+02:00'),
    ]);
    const stored = async (run: AdminRun) =>
      (await prisma.apiKey.findUniqueOrThrow({ where: { id: String(jsonOf(run).id) } })).expiresAt?.toISOString();
    expect(await stored(past)).toBe('2020-01-02T03:04:05.000Z');
    expect(await stored(future)).toBe('2999-12-31T00:00:00.000Z');
    expect(await stored(zoned)).toBe('2030-06-01T10:00:00.000Z');
    await listsWith(String(jsonOf(past).key)).expect(401);
    await listsWith(String(jsonOf(future).key)).expect(200);
  });

  it('list create prints { id }; list archive prints { id, archived: true } and archives it', async () => {
    const org = await createOrg();
    const list = jsonOf(await admin('list', 'create', '--org', org, '--name', 'Newsletter'));
    expect(Object.keys(list)).toEqual(['id']);
    expect(await prisma.list.findUnique({ where: { id: String(list.id) } })).toMatchObject({
      organizationId: org,
      name: 'Newsletter',
      archived: false,
    });
    expect(jsonOf(await admin('list', 'archive', '--id', String(list.id)))).toEqual({ id: list.id, archived: true });
    expect(await prisma.list.findUnique({ where: { id: String(list.id) } })).toMatchObject({ archived: true });
  });

  it('field create stores key, type, required, default and options', async () => {
    const org = await createOrg();
    const runs = await Promise.all([
      admin('field', 'create', '--org', org, '--key', 'plan', '--type', 'select', '--options', 'free, pro,enterprise', '--default', '"free"'),
      admin('field', 'create', '--org', org, '--key', 'consent', '--type', 'boolean', '--required', '--default', 'false'),
      admin('field', 'create', '--org', org, '--key', 'score', '--type', 'number', '--default=-1.5'),
      admin('field', 'create', '--org', org, '--key', 'birthday', '--type', 'date'),
    ]);
    const ids = runs.map((run) => {
      const out = jsonOf(run);
      expect(Object.keys(out)).toEqual(['id']);
      return String(out.id);
    });
    const rows = await prisma.customField.findMany({ where: { id: { in: ids } } });
    const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
    expect(byKey.plan).toMatchObject({ organizationId: org, type: 'select', required: false, defaultValue: 'free', options: ['free', 'pro', 'enterprise'] });
    expect(byKey.consent).toMatchObject({ type: 'boolean', required: true, defaultValue: false, options: [] });
    expect(byKey.score).toMatchObject({ type: 'number', required: false, defaultValue: -1.5 });
    expect(byKey.birthday).toMatchObject({ type: 'date', required: false, defaultValue: null });
  });

  it('suppress prints the normalized email and reason, and updates the reason when run again', async () => {
    const org = await createOrg();
    expect(jsonOf(await admin('suppress', '--org', org, '--email', '  Ada@Example.COM ', '--reason', 'bounced'))).toEqual({
      email: 'ada@example.com',
      reason: 'bounced',
    });
    expect(jsonOf(await admin('suppress', '--org', org, '--email', 'ada@example.com', '--reason', 'complained'))).toEqual({
      email: 'ada@example.com',
      reason: 'complained',
    });
    const rows = await prisma.suppression.findMany({ where: { organizationId: org } });
    expect(rows).toEqual([expect.objectContaining({ email: 'ada@example.com', reason: 'complained' })]);
  });

  it('refuses every bad argument: non-zero exit, one line on stderr, nothing on stdout, nothing written', async () => {
    const org = await createOrg();
    const list = String(jsonOf(await admin('list', 'create', '--org', org, '--name', 'L')).id);
    jsonOf(await admin('field', 'create', '--org', org, '--key', 'plan', '--type', 'text'));
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const counts = async () =>
      Promise.all([
        prisma.organization.count(),
        prisma.apiKey.count(),
        prisma.list.count({ where: { archived: true } }),
        prisma.customField.count(),
        prisma.suppression.count(),
      ]);
    const before = await counts();

    // Every kind of refusal, once; src/admin/admin.commands.spec.ts covers the option parsing case
    // by case. A refusal before the database and one after it run as real processes (the exit code
    // the shell sees, stdout kept clean), the others in process through the same command line.
    const cases: Array<[string, string[], RegExp]> = [
      ['unknown command', ['org', 'delete', '--name', 'x'], /unknown command/i],
      ['unknown option', ['org', 'create', '--name', 'x', '--color', 'red'], /--color/],
      ['missing option', ['list', 'create', '--org', org], /--name/],
      ['unknown organization', ['key', 'create', '--org', unknownId], /organization/],
      ['unknown organization (suppress)', ['suppress', '--org', 'not-an-id', '--email', 'a@b.co', '--reason', 'bounced'], /organization/],
      ['unknown key id', ['key', 'revoke', '--id', unknownId], /key/i],
      ['unknown list id', ['list', 'archive', '--id', unknownId], /list/],
      ['bad --expires-at', ['key', 'create', '--org', org, '--expires-at', 'tomorrow'], /expires-at/],
      ['bad --reason', ['suppress', '--org', org, '--email', 'a@b.co', '--reason', 'spam'], /reason/],
      ['invalid email', ['suppress', '--org', org, '--email', 'not-an-email', '--reason', 'bounced'], /email/],
      ['duplicate field key', ['field', 'create', '--org', org, '--key', 'plan', '--type', 'number'], /already/],
      ['--options on a non-select', ['field', 'create', '--org', org, '--key', 'x', '--type', 'text', '--options', 'a,b'], /options/],
      ['--default of the wrong type', ['field', 'create', '--org', org, '--key', 'x', '--type', 'number', '--default', '"42"'], /default/],
    ];
    const inRealProcess = new Set(['unknown command', 'unknown organization']);
    const results: AdminRun[] = await Promise.all(cases.map(([name, args]) => (inRealProcess.has(name) ? inChild(...args) : admin(...args))));
    cases.forEach(([name, , message], i) => {
      const run = results[i];
      expect({ name, code: run.code, stdout: run.stdout }).toEqual({ name, code: 2, stdout: '' });
      expect({ name, lines: run.stderr.trimEnd().split('\n').length }).toEqual({ name, lines: 1 });
      expect({ name, stderr: run.stderr }).toEqual({ name, stderr: expect.stringMatching(message) });
    });
    expect(await counts()).toEqual(before);
    expect(await prisma.list.findUnique({ where: { id: list } })).toMatchObject({ archived: false });
  }, 90_000);
});

// `--help` and a bad argument are answered from admin-arguments.ts alone: the commands' work (NestJS
// services, Prisma Client, pg) is loaded only for a command that goes to the database.
describe('admin command line without a database', () => {
  it('answers --help and a bad argument without loading NestJS, Prisma Client or pg', () => {
    ensureBuilt();
    const probe = `
      const { runAdminCommandLine } = require('./dist/admin/admin-command-line');
      const io = { out: () => undefined, err: () => undefined, env: {} };
      Promise.all([runAdminCommandLine(['--help'], io), runAdminCommandLine(['org', 'create'], io)]).then((codes) => {
        const heavy = Object.keys(require.cache).filter((file) => /node_modules\\/(@nestjs|@prisma\\/client|pg)\\//.test(file));
        process.stdout.write(JSON.stringify({ codes, heavy }));
      });`;
    const answer = JSON.parse(execFileSync(process.execPath, ['-e', probe], { cwd: PROJECT_ROOT, encoding: 'utf8' })) as unknown;
    expect(answer).toEqual({ codes: [0, 2], heavy: [] });
  });
});
