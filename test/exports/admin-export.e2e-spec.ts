import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jsonOf, runAdminInProcess } from '../admin/run-admin';
import { createOrgWith } from '../utils/fixtures';
import { ROOM_FOR_LOAD, useTestApp } from '../utils/test-app';

/** `admin export --org <id> --file <path>` (docs/api.md "Exports"): the API's NDJSON export, to a file. */
describe('admin export', () => {
  const app = useTestApp(ROOM_FOR_LOAD);
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'export-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the same lines as GET /api/v2/contacts/export and prints rows, feedCursor and file', async () => {
    const org = await createOrgWith(app.t.prisma, { lists: ['A'] });
    const auth = { Authorization: `Bearer ${org.apiKey}` };
    const contacts = ['b@example.com', 'a@example.com'].map((email) => ({ email, listIds: [org.lists[0].id], fields: { city: 'Oslo' } }));
    await app.t.http().post('/api/v2/contacts/batch').set(auth).send({ contacts }).expect(200);
    const file = path.join(dir, 'contacts.ndjson');

    const printed = jsonOf(await runAdminInProcess(['export', '--org', org.id, '--file', file], { DATABASE_URL: app.t.database.url, LOG_LEVEL: 'silent' }));
    const api = await app.t.http().get('/api/v2/contacts/export').set(auth);
    expect(printed).toEqual({ rows: 2, feedCursor: api.headers['x-feed-cursor'], file });
    expect(await readFile(file, 'utf8')).toBe(api.text);
  });

  it('an unknown organization or a missing option is a bad argument (exit 2)', async () => {
    const env = { DATABASE_URL: app.t.database.url, LOG_LEVEL: 'silent' };
    const unknown = await runAdminInProcess(['export', '--org', 'nope', '--file', path.join(dir, 'x')], env);
    expect([unknown.code, unknown.stderr]).toEqual([2, 'export: no organization with id "nope"\n']);
    const missing = await runAdminInProcess(['export', '--org', 'nope'], env);
    expect([missing.code, missing.stderr]).toEqual([2, 'export: missing option --file\n']);
  });
});
