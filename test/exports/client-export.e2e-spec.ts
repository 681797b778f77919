import { ContactSyncClient, ContactSyncError } from '../../client/src';
import { createOrgWith } from '../utils/fixtures';
import { ROOM_FOR_LOAD, useTestApp } from '../utils/test-app';
import { orgWithFillerContacts } from './filler-contacts';

/** The typed client's exportContacts() (client/README.md): the contacts as they stream, and the feed cursor. */
describe('@contact-sync/client exportContacts()', () => {
  const app = useTestApp(ROOM_FOR_LOAD);
  const baseUrl = () => `http://127.0.0.1:${(app.t.app.getHttpServer().address() as { port: number }).port}`;

  it('yields the export as GET /api/v2/contacts/export streams it, with its cursor for events()', async () => {
    const org = await createOrgWith(app.t.prisma, { lists: ['A', 'B'] });
    const client = new ContactSyncClient({ baseUrl: baseUrl(), apiKey: org.apiKey });
    const contacts = ['c@example.com', 'a@example.com', 'b@example.com'].map((email, i) => ({ email, listIds: [org.lists[i % 2].id] }));
    await client.syncContacts(contacts);

    const exported = await client.exportContacts({ listId: org.lists[0].id });
    const seen = [];
    for await (const contact of exported.contacts) seen.push(contact);
    expect(seen.map((c) => c.email)).toEqual(['b@example.com', 'c@example.com']);
    const raw = await app.t.http().get(`/api/v2/contacts/export?listId=${org.lists[0].id}`).set('Authorization', `Bearer ${org.apiKey}`);
    expect(seen).toEqual(raw.text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown));

    await client.upsertContact({ email: 'd@example.com', listIds: [org.lists[0].id] });
    const after = [];
    for await (const page of client.events({ after: exported.feedCursor })) after.push(...page.events);
    expect(after.map((event) => [event.type, (event.data as { contact?: { email: string } }).contact?.email])).toEqual([['contact.created', 'd@example.com']]);

    const refused = await client.exportContacts({ listId: 'nope' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 404, code: 'LIST_NOT_FOUND' });
  });

  it('a stream cut by the service throws NETWORK_ERROR instead of ending quietly', async () => {
    const { org, pg } = await orgWithFillerContacts(app.t, 40000);
    try {
      const client = new ContactSyncClient({ baseUrl: baseUrl(), apiKey: org.apiKey });
      const { contacts } = await client.exportContacts();
      let count = 0;
      const outcome = await (async () => {
        for await (const contact of contacts) {
          expect(contact.email).toMatch(/@example\.com$/);
          if (count++ === 0) {
            await pg.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid IN (1163415600, 1163415601) AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`);
          }
        }
        return 'ended';
      })().catch((error: unknown) => error);
      expect(outcome).toBeInstanceOf(ContactSyncError);
      expect(outcome).toMatchObject({ code: 'NETWORK_ERROR' });
      expect(count).toBeLessThan(40000);
    } finally {
      await pg.end();
    }
  });
});
