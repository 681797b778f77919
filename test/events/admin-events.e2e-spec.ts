import { parseAdminCommand, type AdminCommand } from '../../src/admin/admin-arguments';
import { executeAdminCommand } from '../../src/admin/admin.commands';
import { bootApp, Org, uniqueEmail } from '../contract/helpers';
import { eventsOf, withEventsRefused } from './event-rows';

/**
 * Contract section 16: "Changes made by the admin command line write events like any other", with
 * `requestId` null. The commands run in this process through executeAdminCommand, the function
 * the CLI (src/admin/cli.ts) calls with its own client; a repeated command that changes nothing
 * writes none, and a failed event insert rolls the command's change back.
 */
describe('admin command line: change events', () => {
  const app = bootApp();
  const admin = (...argv: string[]) =>
    executeAdminCommand(app.t.prisma, parseAdminCommand(argv) as Exclude<AdminCommand, { command: 'migrate' }>);

  it('list create and list archive write list.created and list.updated; archiving again writes none', async () => {
    const org = await Org.create(app.t);
    const { id } = await admin('list', 'create', '--org', org.id, '--name', 'Ops');
    await admin('list', 'archive', '--id', id as string);
    await admin('list', 'archive', '--id', id as string);
    expect(await eventsOf(app.t, org.id)).toEqual([
      { type: 'list.created', requestId: null, contactId: null, email: null, data: { list: { id, name: 'Ops', archived: false } } },
      { type: 'list.updated', requestId: null, contactId: null, email: null, data: { list: { id, name: 'Ops', archived: true } } },
    ]);
  });

  it('field create writes field.created as GET /fields shows the field; a taken key writes none', async () => {
    const org = await Org.create(app.t);
    await admin('field', 'create', '--org', org.id, '--key', 'score', '--type', 'number', '--default', '5', '--required');
    await expect(admin('field', 'create', '--org', org.id, '--key', 'score', '--type', 'text')).rejects.toThrow(/already has a field/);
    expect(await eventsOf(app.t, org.id)).toEqual([
      {
        type: 'field.created',
        requestId: null,
        contactId: null,
        email: null,
        data: { field: { key: 'score', type: 'number', required: true, defaultValue: 5, options: null } },
      },
    ]);
  });

  it('suppress writes suppression.created for a new suppression or a new reason, none for the same reason; unsuppress writes suppression.deleted', async () => {
    const { org, list } = await Org.withList(app.t);
    const email = uniqueEmail('admin');
    await org.postContact({ email, listIds: [list] }).expect(201);
    const id = (await org.read(email))!.id;
    const before = (await eventsOf(app.t, org.id)).length;
    await admin('suppress', '--org', org.id, '--email', email, '--reason', 'bounced');
    await admin('suppress', '--org', org.id, '--email', email, '--reason', 'bounced');
    await admin('suppress', '--org', org.id, '--email', email, '--reason', 'complained');
    await admin('unsuppress', '--org', org.id, '--email', email);
    const suppression = (reason: string) => ({ suppression: { email, reason } });
    expect((await eventsOf(app.t, org.id)).slice(before)).toEqual([
      { type: 'suppression.created', requestId: null, contactId: id, email, data: suppression('bounced') },
      { type: 'suppression.created', requestId: null, contactId: id, email, data: suppression('complained') },
      { type: 'suppression.deleted', requestId: null, contactId: id, email, data: suppression('complained') },
    ]);
  });

  it('contact erase redacts and writes contact.erased with requestId null', async () => {
    const { org, list } = await Org.withList(app.t);
    const email = uniqueEmail('admin-erase');
    await org.postContact({ email, listIds: [list] }).expect(201);
    const id = (await org.read(email))!.id;
    await admin('suppress', '--org', org.id, '--email', email, '--reason', 'unsubscribed');
    const printed = await admin('contact', 'erase', '--org', org.id, '--email', email);
    expect(printed).toMatchObject({ contactDeleted: true, eventsRedacted: expect.any(Number) });
    expect(printed.eventsRedacted).toBeGreaterThanOrEqual(1);
    const events = await eventsOf(app.t, org.id);
    expect(JSON.stringify(events)).not.toContain(email);
    expect(events[events.length - 1]).toEqual({ type: 'contact.erased', requestId: null, contactId: id, email: null, data: { contact: { id } } });
  });

  it('a failed event insert rolls the command back', async () => {
    const org = await Org.create(app.t);
    const email = uniqueEmail('refused');
    await withEventsRefused(app.t, org.id, async () => {
      await expect(admin('list', 'create', '--org', org.id, '--name', 'Never')).rejects.toThrow();
      await expect(admin('field', 'create', '--org', org.id, '--key', 'never', '--type', 'text')).rejects.toThrow();
      await expect(admin('suppress', '--org', org.id, '--email', email, '--reason', 'bounced')).rejects.toThrow();
    });
    expect(await admin('list', 'list', '--org', org.id)).toEqual({ lists: [] });
    expect(await admin('field', 'list', '--org', org.id)).toEqual({ fields: [] });
    expect(await app.t.prisma.suppression.count({ where: { organizationId: org.id } })).toBe(0);
    expect(await eventsOf(app.t, org.id)).toEqual([]);
  });
});
