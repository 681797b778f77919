import { bootApp, Org, uniqueEmail } from '../contract/helpers';
import { suppressMany, unsuppress } from '../contract/lifecycle-helpers';
import { jsonOf, runAdminInProcess } from './run-admin';

/**
 * `unsuppress` and `contact erase` (docs/api.md, "Suppressions", "Erasing a contact") on the app's
 * database, sharing the API's rules (SuppressionsService, ErasureService). The refusals (exit code,
 * stderr) and what a command prints and changes are checked on the command line run in Jest's
 * process (`admin`: test/admin/run-admin.ts); admin-cli.e2e-spec.ts shows that a real process
 * exits with the same code.
 */
jest.setTimeout(240_000);

describe('admin unsuppress and contact erase', () => {
  const app = bootApp();
  const admin = (...args: string[]) => runAdminInProcess(args, { DATABASE_URL: app.t.database.url });

  it('unsuppress lifts any reason, complained too (which the API refuses), and an erased one', async () => {
    const { org, list } = await Org.withList(app.t);
    const [c, e] = [uniqueEmail('complained'), uniqueEmail('erased')];
    await suppressMany(org, [{ email: c, reason: 'complained' }, { email: e, reason: 'bounced' }]).expect(200);
    expect((await unsuppress(org, c)).status).toBe(409);
    expect(jsonOf(await admin('unsuppress', '--org', org.id, '--email', ` ${c.toUpperCase()} `))).toEqual({ email: c, status: 'unsuppressed', reason: 'complained' });
    expect((await org.postContact({ email: c, listIds: [list] })).status).toBe(201);

    expect(jsonOf(await admin('contact', 'erase', '--org', org.id, '--email', e))).toMatchObject({ suppressionKept: true });
    expect(jsonOf(await admin('unsuppress', '--org', org.id, '--email', e))).toEqual({ email: e, status: 'unsuppressed', reason: 'bounced' });
    expect((await org.postContact({ email: e, listIds: [list] })).status).toBe(201);
  });

  it('unsuppress of an address not suppressed is a bad argument (exit 2, one line on stderr)', async () => {
    const org = await Org.create(app.t);
    const run = await admin('unsuppress', '--org', org.id, '--email', 'nobody@example.com');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^unsuppress: .*not suppressed/);
    const unknownOrg = await admin('unsuppress', '--org', 'no-such-org', '--email', 'nobody@example.com');
    expect(unknownOrg.code).toBe(2);
    expect(unknownOrg.stderr).toMatch(/organization/);
  });

  it('contact erase prints what the API answers and leaves the address suppressed by hash', async () => {
    const { org, list } = await Org.withList(app.t);
    const email = uniqueEmail('gone');
    await org.postContact({ email, listIds: [list] }).expect(201);
    await suppressMany(org, [{ email, reason: 'unsubscribed' }]).expect(200);
    // Read after the erase: every event of the organization but contact.erased is one of the address's.
    const eventCount = () => app.t.prisma.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM events WHERE organization_id = ${org.id}`.then(([row]) => row.n);
    expect(jsonOf(await admin('contact', 'erase', '--org', org.id, '--email', email.toUpperCase()))).toEqual({
      email,
      status: 'erased',
      contactDeleted: true,
      suppressionKept: true,
      storedAnswersErased: 1, // the create's answer (suppressions are not stored answers)
      // The address's events: suppression.created, and the create's own once the POST pipeline writes events.
      eventsRedacted: (await eventCount()) - 1,
      importRowsErased: 0,
    });
    expect(await org.read(email)).toBeNull();
    expect((await org.postContact({ email, listIds: [list] })).body).toMatchObject({ code: 'SUPPRESSED_EMAIL', suppressionReason: 'unsubscribed' });
    // Again: nothing left but the hash.
    expect(jsonOf(await admin('contact', 'erase', '--org', org.id, '--email', email))).toMatchObject({ contactDeleted: false, suppressionKept: true });
  });

  it('contact erase needs --org and --email', async () => {
    const run = await admin('contact', 'erase', '--email', 'a@b.co');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--org/);
  });
});
