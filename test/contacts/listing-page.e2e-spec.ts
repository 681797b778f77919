import { Database } from '../../src/database/database';
import { StatementRegistry } from '../../src/database/statements';
import { LISTING_PAGE, LISTING_STATEMENTS, listingStatement, listingValues } from '../../src/contacts/listing/listing.statements';
import { AWKWARD_FIELDS, AWKWARD_VALUES, Org, type StoredContact } from '../contract/helpers';
import { ROOM_FOR_LOAD, useTestApp } from '../utils/test-app';

/**
 * PostgreSQL renders the page of GET /api/v2/contacts (listing.statements.ts) and the service sends
 * that text in chunks of 100 contacts. Each contact must be exactly what GET /api/v2/contacts/{email}
 * shows: same keys in the same order, same strings, numbers, times, list order, suppression, nulls
 * left out. The bytes are the same too, except numbers that jsonb stores normalized (`1e21` comes
 * back as `1000000000000000000000`, `1e-7` as `0.0000001`: the same JSON number).
 */
describe('GET /api/v2/contacts: the page as sent', () => {
  // Two tests here seed 20,000 contacts and their memberships to look at plans. Under CI's load (two
  // Jest runs side by side) one such INSERT took past the default 5 s statement_timeout; no test here
  // is about time-outs: ROOM_FOR_LOAD.
  const app = useTestApp(ROOM_FOR_LOAD);

  /** The answer GET /contacts/{email} would make the page of, as JSON.stringify writes it. */
  async function expectedPage(org: Org, text: string, emails: string[], nextCursor: string | null): Promise<string> {
    const contacts: StoredContact[] = [];
    for (const email of emails) contacts.push((await org.read(email))!);
    const { request_id: requestId } = JSON.parse(text) as { request_id: string };
    return JSON.stringify({ request_id: requestId, contacts, nextCursor });
  }

  async function awkwardOrg(numbers: { score: number; ratio: number }) {
    const { org, list } = await Org.withList(app.t, AWKWARD_FIELDS);
    const second = await org.list('Second');
    const third = await org.list('Third');
    const emails = ["o'neil+tag@example.com", 'plain@example.com', 'x.y_z-1@example.com', 'zz@example.com'];
    const fields = { ...AWKWARD_VALUES, score: numbers.score, ratio: numbers.ratio };
    let res = await org.batch([
      { email: emails[0], listIds: [third], fields },
      { email: emails[1], listIds: [list] },
      { email: emails[2], listIds: [second], fields: { country: 'NO', vip: true, score: -1.5 } },
      { email: emails[3], listIds: [list], fields: { jobTitle: 'CTO' } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.summary.failed).toBe(0);
    // Memberships made later come later in listIds (oldest first), whatever the ids' order.
    res = await org.batch([
      { email: emails[0], listIds: [list, second], overwrite: true },
      { email: emails[2], listIds: [list], overwrite: true },
    ]);
    expect(res.body.summary.failed).toBe(0);
    await org.suppress(emails[1], 'complained');
    await org.suppress('not-a-contact@example.com');
    // A stored null (the API never stores one; an old row might): reads leave it out.
    await app.t.prisma.$executeRaw`UPDATE contacts SET custom_fields = custom_fields || '{"gone": null}'::jsonb WHERE organization_id = ${org.id} AND email = ${emails[3]}`;
    return { org, list, emails };
  }

  it('is, byte for byte, the JSON of each contact as GET /contacts/{email} shows it', async () => {
    const { org, emails } = await awkwardOrg({ score: 12345.678, ratio: 2 ** 53 + 2 });
    const res = await org.get('/api/v2/contacts?limit=1000');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    expect(res.text).toBe(await expectedPage(org, res.text, emails, null));
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    const [first] = res.body.contacts as StoredContact[];
    expect(Object.keys(first)).toEqual(['id', 'email', 'listIds', 'fields', 'suppressed', 'createdAt', 'updatedAt']);
    expect(Object.keys(first.fields)).toEqual([
      ...['firstName', 'lastName', 'phone', 'company', 'city'], // the standard ones in their order, then the custom ones as jsonb keeps them
      ...['z', 'vip', 'born', 'note', 'tier', 'ratio', 'score', 'a_longer_key_name'],
    ]);
    expect(first.fields.phone).toBe('\u0001\u001f\b\f\n\r\t\u007f');

    // A page that ends before the last contact: its cursor, then the rest.
    const head = await org.get('/api/v2/contacts?limit=2');
    expect(head.text).toBe(await expectedPage(org, head.text, emails.slice(0, 2), head.body.nextCursor));
    expect(typeof head.body.nextCursor).toBe('string');
    const rest = await org.get(`/api/v2/contacts?limit=2&cursor=${head.body.nextCursor}`);
    expect(rest.text).toBe(await expectedPage(org, rest.text, emails.slice(2), null));
  });

  it('numbers jsonb normalizes are the same JSON numbers', async () => {
    const { org, emails } = await awkwardOrg({ score: 1e21, ratio: 1e-7 });
    const res = await org.get('/api/v2/contacts?limit=1000');
    expect(res.text).toContain('"ratio":0.0000001');
    expect(res.text).toContain('"score":1000000000000000000000');
    const expected = await expectedPage(org, res.text, emails, null);
    expect(JSON.parse(res.text)).toStrictEqual(JSON.parse(expected));
    expect(JSON.stringify(JSON.parse(res.text))).toBe(expected);
  });

  it('joins the chunks PostgreSQL renders (100 contacts a row) in listing order, with the cursor of the last contact', async () => {
    const { org, list } = await Org.withList(app.t);
    const emails = Array.from({ length: 250 }, (_, i) => `c${String(i).padStart(3, '0')}@example.com`);
    for (let i = 0; i < emails.length; i += 50) {
      const res = await org.batch(emails.slice(i, i + 50).map((email) => ({ email, listIds: [list] })));
      expect(res.body.summary.created).toBe(50);
    }
    const get = (query: string) => org.get(`/api/v2/contacts?${query}`);
    const seen = (res: { body: { contacts: Array<{ email: string }> } }) => res.body.contacts.map((contact) => contact.email);

    for (const filters of ['', `&listId=${list}`]) {
      const all = await get(`limit=1000${filters}`);
      expect([seen(all), all.body.nextCursor]).toEqual([emails, null]);
      expect((await get(`limit=250${filters}`)).body.nextCursor).toBeNull(); // exactly the rest: the last page
      const first = await get(`limit=200${filters}`);
      expect(seen(first)).toEqual(emails.slice(0, 200));
      const next = await get(`limit=1000${filters}&cursor=${first.body.nextCursor}`);
      expect([seen(next), next.body.nextCursor]).toEqual([emails.slice(200), null]);
    }
  });

  it("every page statement reads each contact's list ids index-only from the membership primary key, whose contact ids compare in byte order", async () => {
    // Byte order because in the database's collation each key
    // comparison is a strcoll, and without created_at in the key each membership costs a heap fetch.
    const { org, list } = await Org.withList(app.t);
    const organizationId = org.id;
    const collations = await app.t.prisma.$queryRaw<Array<{ column: string; collation: string }>>`
      SELECT c.relname || '.' || a.attname AS column, co.collname AS collation
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_collation co ON co.oid = a.attcollation
      WHERE (c.relname, a.attname) IN (('contacts', 'id'), ('list_memberships', 'contact_id')) ORDER BY 1`;
    expect(collations).toEqual([
      { column: 'contacts.id', collation: 'C' },
      { column: 'list_memberships.contact_id', collation: 'C' },
    ]);
    await app.t.prisma.$executeRaw`INSERT INTO contacts (organization_id, email) SELECT ${organizationId}, 'i' || g || '@example.com' FROM generate_series(1, 20000) AS g`;
    await app.t.prisma.$executeRaw`INSERT INTO list_memberships (contact_id, list_id, email) SELECT id, ${list}, email FROM contacts WHERE organization_id = ${organizationId}`;
    await app.t.prisma.$executeRawUnsafe('VACUUM ANALYZE list_memberships');
    await app.t.prisma.$executeRawUnsafe('ANALYZE contacts');
    const client = await app.t.app.get(Database).pool.connect();
    try {
      for (const statement of LISTING_STATEMENTS) {
        const values = listingValues(statement, { organizationId, after: '', limit: 1000, listId: statement === LISTING_PAGE.contacts ? null : list, suppressed: null, updatedSince: new Date(0) });
        const plan = (await client.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (COSTS OFF) ${statement.text}`, values })).rows.map((row) => row['QUERY PLAN']).join('\n');
        const lookup = plan.slice(plan.indexOf('SubPlan'));
        expect({ name: statement.name, lookup }).toEqual({
          name: statement.name,
          lookup: expect.stringContaining('Index Only Scan using list_memberships_pkey on list_memberships m'),
        });
      }
    } finally {
      client.release();
    }
  });

  it('no page statement is ever planned parallel (a PARALLEL UNSAFE call in its text), and without that call it would be', async () => {
    const statements = app.t.app.get(StatementRegistry).all().filter((s) => s.name.startsWith('contacts.listing-page-'));
    expect(statements.map((s) => s.name).sort()).toEqual(LISTING_STATEMENTS.map((s) => s.name).sort());
    const { org, list } = await Org.withList(app.t);
    const organizationId = org.id;
    // Enough rows, with statistics, for the planner to weigh a parallel walk.
    await app.t.prisma.$executeRaw`INSERT INTO contacts (organization_id, email) SELECT ${organizationId}, 'p' || g || '@example.com' FROM generate_series(1, 20000) AS g`;
    await app.t.prisma.$executeRaw`INSERT INTO list_memberships (contact_id, list_id, email) SELECT id, ${list}, email FROM contacts WHERE organization_id = ${organizationId}`;
    await app.t.prisma.$executeRawUnsafe('ANALYZE contacts, list_memberships');
    const client = await app.t.app.get(Database).pool.connect();
    try {
      // Parallel plans made free, so that the planner takes one wherever it may.
      for (const setting of ['parallel_setup_cost', 'parallel_tuple_cost', 'min_parallel_index_scan_size', 'min_parallel_table_scan_size']) {
        await client.query(`SET ${setting} = 0`);
      }
      await client.query('SET max_parallel_workers_per_gather = 4');
      const plan = async (text: string, values: unknown[]) =>
        (await client.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (COSTS OFF) ${text}`, values })).rows.map((row) => row['QUERY PLAN']).join('\n');
      // A page of 1,000 from the start, whatever the filters (the plan, not the rows, is what is looked at).
      const valuesOf = (statement: (typeof LISTING_STATEMENTS)[number]) =>
        listingValues(statement, { organizationId, after: '', limit: 1000, listId: statement === LISTING_PAGE.contacts ? null : list, suppressed: null, updatedSince: new Date(0) });
      for (const statement of LISTING_STATEMENTS) {
        expect({ name: statement.name, plan: await plan(statement.text, valuesOf(statement)) }).toEqual({
          name: statement.name,
          plan: expect.not.stringContaining('Gather'),
        });
      }
      // The check can fail: without the call, the gathered updatedSince joined with a list goes parallel here
      // (as it did on the bench's 1,000,000 contacts with default costs).
      for (const statement of [listingStatement('updated', { listId: list, suppressed: null })]) {
        const unmarked = statement.text.replace('pg_current_xact_id_if_assigned() IS NULL OR true', 'true');
        expect(unmarked).not.toBe(statement.text);
        expect(await plan(unmarked, valuesOf(statement))).toContain('Gather');
      }
    } finally {
      client.release(true); // its session settings go with it
    }
  });
});
