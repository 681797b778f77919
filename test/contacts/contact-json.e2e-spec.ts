import { renderContact } from '../../src/contacts/contact-results';
import { type ContactRow, toStoredContact } from '../../src/contacts/contacts.repository';
import { CONTACT_COLUMNS, contactJsonPart } from '../../src/contacts/contacts.statements';
import { Database } from '../../src/database/database';
import { AWKWARD_FIELDS, AWKWARD_VALUES, Org } from '../contract/helpers';
import { useTestApp } from '../utils/test-app';

/**
 * The two renderings of a contact: contactJsonPart (PostgreSQL; GET /contacts/{email}, the listing,
 * the export, the events of the write paths that read the contact) and renderContact (Node; the
 * pipeline's events, from its plans). For the same stored contact they must write the same bytes,
 * whatever the strings, fields, lists and suppression; the one exception is a number jsonb writes
 * in full where JSON.stringify uses an exponent: the same JSON number.
 */
describe('contactJsonPart and renderContact', () => {
  const app = useTestApp({ WEBHOOK_DELIVERY: 'false' });

  /** Every contact of the organization, by email: the SQL text and renderContact's text of the same row. */
  async function bothRenderings(organizationId: string): Promise<Map<string, { sql: string; node: string }>> {
    const rows = await app.t.app.get(Database).transaction(async (tx) =>
      (
        await tx.query<ContactRow & { json: string }>(
          `SELECT ${CONTACT_COLUMNS}, ${contactJsonPart('c')} AS json FROM contacts c WHERE c.organization_id = $1 ORDER BY c.email COLLATE "C"`,
          [organizationId],
        )
      ).rows,
    );
    return new Map(rows.map((row) => [row.email, { sql: row.json, node: JSON.stringify(renderContact(toStoredContact(row))) }]));
  }

  async function variedOrg() {
    const { org, list } = await Org.withList(app.t, AWKWARD_FIELDS);
    const lists = [list, ...(await org.lists(11))];
    const awkward = { ...AWKWARD_VALUES, jobTitle: 'Zoë 漢字 😀', country: "O'Brien land", score: 12345.678, ratio: 2 ** 53 + 2 };
    let res = await org.batch([
      { email: "o'neil+tag@example.com", listIds: lists.slice(6), fields: awkward },
      { email: 'bare@example.com', listIds: [list] },
      { email: 'numbers@example.com', listIds: [list], fields: { score: -1.5, ratio: 0.1, vip: true, born: '2026-02-28' } },
      { email: 'zero@example.com', listIds: [list], fields: { score: 0, firstName: 'Only' } },
      { email: 'suppressed@example.com', listIds: lists.slice(0, 2), fields: { tier: 'gold' } },
    ]);
    expect(res.body.summary.created).toBe(5);
    // Memberships made later come later in listIds: many lists, in two requests.
    res = await org.batch([{ email: "o'neil+tag@example.com", listIds: lists.slice(0, 6), overwrite: true }]);
    expect(res.body.summary.updated).toBe(1);
    await org.suppress('suppressed@example.com', 'complained');
    await org.suppress('bare@example.com', 'unsubscribed');
    await org.rawContact('raw@example.com');
    // A stored null (the API never stores one; an old row might): both leave it out.
    await app.t.prisma.$executeRaw`UPDATE contacts SET custom_fields = custom_fields || '{"gone": null}'::jsonb WHERE organization_id = ${org.id} AND email = 'zero@example.com'`;
    return { org, lists };
  }

  it('write the same bytes for the same stored contacts', async () => {
    const { org, lists } = await variedOrg();
    const rendered = await bothRenderings(org.id);
    expect([...rendered.keys()]).toEqual(['bare@example.com', 'numbers@example.com', "o'neil+tag@example.com", 'raw@example.com', 'suppressed@example.com', 'zero@example.com']);
    for (const { sql, node } of rendered.values()) expect(sql).toBe(node);

    // What the test is made of is really there: the awkward values, the lists' order, the suppression, the null left out.
    const awkward = JSON.parse(rendered.get("o'neil+tag@example.com")!.sql);
    expect(awkward.listIds).toHaveLength(12);
    expect(new Set(awkward.listIds)).toEqual(new Set(lists));
    expect(awkward.listIds.slice(6).sort()).toEqual(lists.slice(0, 6).sort());
    expect(awkward.fields).toMatchObject({ phone: '\u0001\u001f\b\f\n\r\t\u007f', company: '', ratio: 2 ** 53 + 2, vip: false });
    expect(JSON.parse(rendered.get('suppressed@example.com')!.sql).suppressed).toEqual({ reason: 'complained' });
    expect(JSON.parse(rendered.get('zero@example.com')!.sql).fields).toEqual({ firstName: 'Only', score: 0 });
    expect(JSON.parse(rendered.get('raw@example.com')!.sql)).toMatchObject({ listIds: [], fields: {}, suppressed: null });
  });

  it('GET /contacts/{email} and the NDJSON export send that text as it is', async () => {
    const { org } = await variedOrg();
    const rendered = await bothRenderings(org.id);
    for (const [email, { sql }] of rendered) {
      const res = await org.getContact(email);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.text).toBe(`{"request_id":${JSON.stringify(res.headers['x-request-id'])},"contact":${sql}}`);
    }
    const exported = await org.get('/api/v2/contacts/export').buffer(true).parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
    expect(exported.status).toBe(200);
    expect(exported.body).toBe([...rendered.values()].map(({ sql }) => `${sql}\n`).join(''));
  });

  it('numbers JSON.stringify writes with an exponent are written in full by jsonb: the same JSON numbers', async () => {
    const { org, list } = await Org.withList(app.t, [
      { key: 'score', type: 'number' },
      { key: 'ratio', type: 'number' },
    ]);
    const res = await org.batch([{ email: 'exp@example.com', listIds: [list], fields: { score: 1e21, ratio: 1e-7 } }]);
    expect(res.body.summary.created).toBe(1);
    const { sql, node } = (await bothRenderings(org.id)).get('exp@example.com')!;
    expect(sql).toContain('"score":1000000000000000000000');
    expect(sql).toContain('"ratio":0.0000001');
    expect(node).toContain('"score":1e+21');
    expect(JSON.parse(sql)).toStrictEqual(JSON.parse(node));
    expect(JSON.stringify(JSON.parse(sql))).toBe(node);
  });
});
