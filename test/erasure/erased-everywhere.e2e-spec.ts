import { Client } from 'pg';
import { bootApp, Org } from '../contract/helpers';
import { erase, suppressMany } from '../contract/lifecycle-helpers';

/**
 * docs/api.md, "Erasing a contact": after an erase, no text, varchar, json, jsonb (or text array)
 * column of any table holds the address, in any letter case. The columns are found in
 * information_schema, so a table or column added later is walked too.
 */
async function columnsHolding(url: string, needle: string): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: columns } = await client.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = 'public'
         AND (data_type IN ('text', 'character varying', 'character', 'json', 'jsonb') OR udt_name IN ('_text', '_varchar', '_json', '_jsonb'))
       ORDER BY table_name, column_name`,
    );
    expect(columns.length).toBeGreaterThan(10); // the walk really walks
    const found: string[] = [];
    for (const { table_name: table, column_name: column } of columns) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${table}" WHERE "${column}"::text ILIKE '%' || $1 || '%'`,
        [needle],
      );
      if (rows[0].n > 0) found.push(`${table}.${column}`);
    }
    return found;
  } finally {
    await client.end();
  }
}

describe('erase leaves the address in no column of any table', () => {
  const app = bootApp();

  it('contact, memberships, suppression, stored answers (single, batch, client request id): all gone', async () => {
    const { org, list } = await Org.withList(app.t);
    const second = await org.list('Second');
    const email = 'Erase.Me@Example.com';
    const normalized = email.toLowerCase();
    await org.field('note', 'text');
    await org.postContact({ email, listIds: [list, second], fields: { firstName: 'Ada', note: 'about me' } }).expect(201);
    await org.postContact({ email: ` ${email.toUpperCase()} `, listIds: [list], overwrite: true, fields: { city: 'Oslo' } }).expect(200);
    await org.postContact({ email, listIds: [list] }).expect(409); // a stored per-contact failure
    await org.batch([{ email: 'someone.else@example.com', listIds: [list] }, { email, listIds: [list], overwrite: true }]).expect(200);
    await org.t
      .http()
      .post('/api/v2/contacts')
      .set('Authorization', `Bearer ${org.key}`)
      .set('X-Client-Request-Id', 'erase-walk-1')
      .send({ email, listIds: [list], overwrite: true, fields: { city: 'Bergen' } })
      .expect(200);
    await suppressMany(org, [{ email, reason: 'complained' }]).expect(200);

    // The walk finds it before: the test can fail.
    expect(await columnsHolding(app.t.database.url, normalized)).toEqual(
      expect.arrayContaining(['contacts.email', 'suppressions.email', 'stored_responses.body', 'stored_responses.emails']),
    );

    const res = await erase(org, email);
    expect(res.body).toMatchObject({ contactDeleted: true, suppressionKept: true, storedAnswersErased: 5 });
    expect(await columnsHolding(app.t.database.url, normalized)).toEqual([]);
    expect(await app.t.prisma.listMembership.count({ where: { list: { organizationId: org.id } } })).toBe(1); // someone.else's
    // Still suppressed, by hash.
    expect((await org.postContact({ email, listIds: [list] })).body).toMatchObject({ code: 'SUPPRESSED_EMAIL', suppressionReason: 'complained' });
    expect((await org.get('/api/v2/requests?clientRequestId=erase-walk-1')).status).toBe(404);
  });
});
