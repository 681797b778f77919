import { AWKWARD_FIELDS, AWKWARD_VALUES, Org } from '../contract/helpers';
import { useTestApp } from '../utils/test-app';

/**
 * One rendering of a contact: contactJsonPart (contacts.statements.ts), composed by GET
 * /contacts/{email}, the listing, the NDJSON export, the POST pipeline's write statement (the
 * `data.contact` of contact.created and contact.updated, rendered from the row it writes) and the
 * read of list removals and deletes (contact.list_removed, contact.deleted, stored as read). For the
 * same contact each writes the same bytes, whatever the strings, fields (in jsonb's key order,
 * numbers as jsonb writes them: `1e21` in full), lists (membership order) and suppression.
 */
describe('a contact as JSON text: GET, the listing, the export and the events write the same bytes', () => {
  const app = useTestApp({ WEBHOOK_DELIVERY: 'false' });

  /**
   * Contacts made through the API whose last event shows them as they are now (nothing changes
   * them after it but a stored null, which no rendering shows), and one written straight to the
   * database (no event).
   */
  async function variedOrg() {
    const { org, list } = await Org.withList(app.t, AWKWARD_FIELDS);
    const lists = [list, ...(await org.lists(11))];
    const awkward = { ...AWKWARD_VALUES, jobTitle: 'Zoë 漢字 😀', country: "O'Brien land", score: 12345.678, ratio: 2 ** 53 + 2 };
    await org.suppress('suppressed@example.com', 'complained');
    let res = await org.batch([
      { email: "o'neil+tag@example.com", listIds: lists.slice(6), fields: awkward },
      { email: 'bare@example.com', listIds: [list] },
      // Keys out of jsonb's order (shorter keys first); numbers JSON.stringify writes with an exponent.
      { email: 'numbers@example.com', listIds: [list], fields: { score: -1.5, ratio: 0.1, vip: true, born: '2026-02-28' } },
      { email: 'exp@example.com', listIds: [list], fields: { score: 1e21, ratio: 1e-7 } },
      { email: 'zero@example.com', listIds: [list], fields: { score: 0, firstName: 'Only' } },
      // A suppressed address stored with overwrite: its event shows the suppression.
      { email: 'suppressed@example.com', listIds: lists.slice(0, 2), fields: { tier: 'gold' }, overwrite: true },
    ]);
    expect(res.body.summary.created).toBe(6);
    // Memberships made later come later in listIds: many lists, in two requests.
    res = await org.batch([{ email: "o'neil+tag@example.com", listIds: lists.slice(0, 6), overwrite: true }]);
    expect(res.body.summary.updated).toBe(1);
    // An update of a suppressed contact shows its suppression; the single endpoint writes the same.
    await org.suppress('bare@example.com', 'unsubscribed');
    res = await org.postContact({ email: 'bare@example.com', listIds: [lists[3]], fields: { city: 'Bern' }, overwrite: true });
    expect(res.body.status).toBe('updated');
    res = await org.postContact({ email: 'single@example.com', listIds: [lists[5], lists[4]], fields: { z: 'a', note: 'b' } });
    expect(res.status).toBe(201);
    await org.rawContact('raw@example.com');
    // A stored null (the API never stores one; an old row might): every rendering leaves it out.
    await app.t.prisma.$executeRaw`UPDATE contacts SET custom_fields = custom_fields || '{"gone": null}'::jsonb WHERE organization_id = ${org.id} AND email = 'zero@example.com'`;
    return { org, lists };
  }

  /** Each contact's text in GET /contacts/{email}'s body, by email, in the order given. */
  async function getTexts(org: Org, emails: string[]): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    for (const email of emails) {
      const res = await org.getContact(email);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const head = `{"request_id":${JSON.stringify(res.headers['x-request-id'])},"contact":`;
      expect(res.text.startsWith(head) && res.text.endsWith('}')).toBe(true);
      texts.set(email, res.text.slice(head.length, -1));
    }
    return texts;
  }

  /** The stored text of each contact's last event of these types, by email. */
  async function lastEventBodies(organizationId: string, types = ['contact.created', 'contact.updated']): Promise<Map<string, string>> {
    const rows = await app.t.prisma.$queryRaw<Array<{ email: string; body: string }>>`
      SELECT email, body FROM events
      WHERE organization_id = ${organizationId} AND type = ANY(${types}::text[]) ORDER BY seq`;
    return new Map(rows.map((row) => [row.email, row.body]));
  }

  /** Each body is its event with `data.contact` spliced in as the contact's text, as JSON.stringify writes an event whose data starts with the contact. */
  function expectContactTexts(bodies: Map<string, string>, texts: Map<string, string>): void {
    for (const [email, body] of bodies) {
      const at = body.indexOf(',"data":{"contact":') + ',"data":{"contact":'.length;
      const { contact, ...rest } = (JSON.parse(body) as { data: Record<string, unknown> }).data;
      expect(contact).toBeDefined();
      const after = Object.keys(rest).length === 0 ? '}}' : `,${JSON.stringify(rest).slice(1, -1)}}}`;
      expect(body).toBe(`${body.slice(0, at)}${texts.get(email)}${after}`);
    }
  }

  const emails = [
    'bare@example.com',
    'exp@example.com',
    'numbers@example.com',
    "o'neil+tag@example.com",
    'raw@example.com',
    'single@example.com',
    'suppressed@example.com',
    'zero@example.com',
  ];

  it("an event's data.contact is GET's text, byte for byte, and so is each contact of the listing and the export", async () => {
    const { org, lists } = await variedOrg();
    const texts = await getTexts(org, emails);

    const bodies = await lastEventBodies(org.id);
    expect([...bodies.keys()].sort()).toEqual(emails.filter((email) => email !== 'raw@example.com'));
    expectContactTexts(bodies, texts);

    const listing = await org.get('/api/v2/contacts?limit=1000');
    expect(listing.status).toBe(200);
    expect(listing.text).toBe(
      `{"request_id":${JSON.stringify(listing.headers['x-request-id'])},"contacts":[${[...texts.values()].join(',')}],"nextCursor":null}`,
    );

    const exported = await org.get('/api/v2/contacts/export').buffer(true).parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
    expect(exported.status).toBe(200);
    expect(exported.body).toBe([...texts.values()].map((text) => `${text}\n`).join(''));

    // What the test is made of is really there: the awkward values, the lists' order, the
    // suppressions, jsonb's key order and numbers, the null left out.
    const parsed = (email: string) => JSON.parse(texts.get(email)!);
    const awkward = parsed("o'neil+tag@example.com");
    expect(awkward.listIds).toHaveLength(12);
    expect(new Set(awkward.listIds)).toEqual(new Set(lists));
    expect(awkward.listIds.slice(6).sort()).toEqual(lists.slice(0, 6).sort());
    expect(awkward.fields).toMatchObject({ phone: '\u0001\u001f\b\f\n\r\t\u007f', company: '', ratio: 2 ** 53 + 2, vip: false });
    expect(parsed('suppressed@example.com').suppressed).toEqual({ reason: 'complained' });
    expect(parsed('bare@example.com')).toMatchObject({ listIds: [lists[0], lists[3]], fields: { city: 'Bern' }, suppressed: { reason: 'unsubscribed' } });
    expect(parsed('single@example.com').listIds).toEqual([lists[4], lists[5]].sort());
    expect(texts.get('numbers@example.com')).toContain('"fields":{"vip":true,"born":"2026-02-28","ratio":0.1,"score":-1.5}');
    expect(texts.get('exp@example.com')).toContain('"fields":{"ratio":0.0000001,"score":1000000000000000000000}');
    expect(parsed('zero@example.com').fields).toEqual({ firstName: 'Only', score: 0 });
    expect(parsed('raw@example.com')).toMatchObject({ listIds: [], fields: {}, suppressed: null });
  });
  it("contact.list_removed shows GET's text after the removal, contact.deleted GET's text before the delete, byte for byte", async () => {
    const { org, lists } = await variedOrg();
    // Each keeps a list, so the removal is a change (a last membership is not removed).
    const removing = ['exp@example.com', 'numbers@example.com', "o'neil+tag@example.com"];
    const more = await org.batch(removing.map((email) => ({ email, listIds: [lists[7]], overwrite: true })));
    expect(more.status).toBe(200);
    const removed = await org.postRaw(`/api/v2/lists/${lists[0]}/contacts/remove`, JSON.stringify({ emails: removing }));
    expect(removed.status).toBe(200);
    const afterRemoval = await getTexts(org, removing);
    const removals = await lastEventBodies(org.id, ['contact.list_removed']);
    expect([...removals.keys()].sort()).toEqual([...removing].sort());
    expectContactTexts(removals, afterRemoval);

    const deleting = ['exp@example.com', 'zero@example.com', 'suppressed@example.com'];
    const beforeDelete = await getTexts(org, deleting);
    for (const email of deleting) {
      const res = await org.t.http().delete(`/api/v2/contacts/${encodeURIComponent(email)}`).set('Authorization', `Bearer ${org.key}`);
      expect(res.status).toBeLessThan(300);
    }
    const deletes = await lastEventBodies(org.id, ['contact.deleted']);
    expect([...deletes.keys()].sort()).toEqual([...deleting].sort());
    expectContactTexts(deletes, beforeDelete);
    // The numbers are jsonb's, in full, as GET writes them (JSON.stringify would write 1e+21).
    expect(deletes.get('exp@example.com')).toContain('"score":1000000000000000000000');
  });
});
