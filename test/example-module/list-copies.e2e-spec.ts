import { createOrgWith } from '../utils/fixtures';
import { refuseInsertsWhere } from '../utils/refuse-inserts';
import { createTestApp, type TestApp } from '../utils/test-app';
import { ListCopiesModule } from './list-copies.module';

/** The example module of docs/extending.md, mounted next to the app's own modules. */
describe('example module: POST /api/v2/example/lists/{id}/copy', () => {
  let t: TestApp;
  let org: Awaited<ReturnType<typeof createOrgWith>>;
  const auth = () => ({ Authorization: `Bearer ${org.apiKey}` });

  beforeAll(async () => {
    t = await createTestApp({ IP_RATE_LIMIT: '100000', ORG_RATE_LIMIT: '100000' }, { modules: [ListCopiesModule] });
    org = await createOrgWith(t.prisma, { lists: ['Main', 'Other'], scope: 'admin' }); // the route needs the admin scope
    const contacts = ['ada@example.com', 'bob@example.com', 'cy@example.com'].map((email) => ({ email, listIds: [org.lists[0].id] }));
    const res = await t.http().post('/api/v2/contacts/batch').set(auth()).send({ contacts });
    expect(res.body.summary.created).toBe(3);
  });
  afterAll(() => t.close());

  const listCount = () => t.prisma.list.count({ where: { organizationId: org.id } });

  it('copies a list and its members in one transaction; the new id comes from the database default', async () => {
    const res = await t.http().post(`/api/v2/example/lists/${org.lists[0].id}/copy`).set(auth()).send({ name: 'Main (copy)' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      request_id: res.headers['x-request-id'],
      list: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Main (copy)', members: 3 },
    });
    const members = await t.prisma.listMembership.count({ where: { listId: res.body.list.id } });
    expect(members).toBe(3);
    const lists = await t.http().get('/api/v2/lists').set(auth());
    expect(lists.body.lists.map((list: { name: string }) => list.name)).toContain('Main (copy)');
  });

  it('answers 404 LIST_NOT_FOUND for an unknown list and writes nothing', async () => {
    const before = await listCount();
    const res = await t.http().post('/api/v2/example/lists/no-such-list/copy').set(auth()).send({ name: 'X' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('LIST_NOT_FOUND');
    expect(await listCount()).toBe(before);
  });

  it('refuses a wrong shape with 400 INVALID_REQUEST naming the path, and writes nothing', async () => {
    const before = await listCount();
    const empty = await t.http().post(`/api/v2/example/lists/${org.lists[0].id}/copy`).set(auth()).send({ name: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toEqual({ code: 'INVALID_REQUEST', message: 'name must be 1 to 255 characters' });
    const unknown = await t.http().post(`/api/v2/example/lists/${org.lists[0].id}/copy`).set(auth()).send({ name: 'X', color: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe('Unknown key: color');
    expect(await listCount()).toBe(before);
  });

  it('a failure inside the transaction leaves neither the new list nor any membership', async () => {
    await refuseInsertsWhere(t.prisma, 'refuse_copied_memberships', 'list_memberships', `NEW.list_id <> '${org.lists[0].id}'`);
    const before = await listCount();
    const res = await t.http().post(`/api/v2/example/lists/${org.lists[0].id}/copy`).set(auth()).send({ name: 'Doomed' });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL_ERROR');
    expect(await listCount()).toBe(before);
  });
});
