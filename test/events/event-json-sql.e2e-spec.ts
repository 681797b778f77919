import { EventsRepository } from '../../src/events/events.repository';
import { isoTimeSql } from '../../src/database/sql-text';
import { publicEventIdPart } from '../../src/events/events.statements';
import { renderEvent, type EventContact, type EventData, type NewEvent } from '../../src/events/event-types';
import { createOrganization } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';

/**
 * The two renderings of an event's text: renderEvent (Node, every writer) and eventJsonSql
 * (PostgreSQL; what the migration that filled events.body runs). Given the same `data` text they must write the same bytes: the envelope (id,
 * type, occurredAt, requestId and its escaping) is theirs. From jsonb `data`, PostgreSQL writes
 * data's text its own way: a space after every `:` and `,`, jsonb's key order (shorter keys first),
 * numbers in full. That is why erasure does not render in SQL: a redacted event's text is what
 * renderEvent writes for the redacted event, byte for byte (the last test).
 */
/**
 * SQL of an event (alias `e` of events) as JSON text, its `data` being the SQL `data` (json or
 * jsonb): what the feed rendered before events stored their text, what migration
 * 20261124190400_event_body_feed4 wrote for the events it found (the same SQL, inlined there).
 * No statement of the service uses it: every stored text is renderEvent's. `id` (`evt_…`),
 * `occurredAt` (as toISOString) and `type` need no escaping; `requestId` and `data` are escaped by
 * PostgreSQL's JSON output.
 */
const eventJsonSql = (e: string, data: string): string =>
  `'{"id":"' || ${publicEventIdPart(`${e}.id`)} || '","type":"' || ${e}.type
           || '","occurredAt":"' || ${isoTimeSql(`${e}.occurred_at`)}
           || '","requestId":' || coalesce(to_json(${e}.request_id)::text, 'null') || ',"data":' || (${data})::text || '}'`;

describe('eventJsonSql and renderEvent', () => {
  const app = useTestApp({ WEBHOOK_DELIVERY: 'false' });

  const email = `o'brien"quoted"\\back\\slash@exämple.com`;
  const contact: EventContact = {
    id: 'c-1',
    email,
    listIds: ['l-1', 'l-2'],
    fields: { first_name: 'Zoë 漢字 😀', note: 'tab\there, line\nthere \u2028\u2029 \u0001\u001f\u007f', score: 1e21, tiny: 1e-7, big: 2 ** 53 + 2, none: null },
    suppressed: { reason: 'bounced' },
    createdAt: '2026-11-24T10:00:00.000Z',
    updatedAt: '2026-11-24T10:00:01.123Z',
  };

  async function recorded(events: NewEvent[]) {
    await app.t.prisma.database.transaction((tx) => app.t.app.get(EventsRepository).record(tx, events));
    return app.t.prisma.$queryRawUnsafe<Array<{ id: string; type: string; requestId: string | null; occurredAt: Date; body: string; fromJson: string; fromJsonb: string }>>(
      `SELECT e.id::text, e.type, e.request_id AS "requestId", e.occurred_at AS "occurredAt", e.body,
              ${eventJsonSql('e', `e.body::json -> 'data'`)} AS "fromJson",
              ${eventJsonSql('e', `e.body::jsonb -> 'data'`)} AS "fromJsonb"
       FROM events e WHERE e.organization_id = $1 ORDER BY e.seq`,
      events[0].organizationId,
    );
  }

  function eventsOf(organizationId: string): NewEvent[] {
    return [
      { organizationId, type: 'contact.created', requestId: 'req-1', contactId: 'c-1', email, data: { contact } },
      {
        organizationId,
        type: 'contact.updated',
        requestId: 'a "quoted" \\ request\u0001 id é 😀',
        contactId: 'c-1',
        email,
        data: { contact, changedFields: ['first_name', 'note'], addedListIds: ['l-2'] },
      },
      { organizationId, type: 'contact.list_removed', requestId: null, contactId: 'c-1', email, data: { contact, listId: 'l-1' } },
      { organizationId, type: 'contact.erased', requestId: null, contactId: 'c-1', data: { contact: { id: 'c-1' } } },
      { organizationId, type: 'suppression.created', requestId: 'req-2', email, data: { suppression: { email, reason: 'complained' } } },
      { organizationId, type: 'list.created', requestId: 'req-3', data: { list: { id: 'l-1', name: 'A, "B": C \\ ü', archived: false } } },
    ];
  }

  it('write the same text for the same event and data text, whatever the type and the strings hold', async () => {
    const org = await createOrganization(app.t.prisma);
    const events = eventsOf(org.id);
    const rows = await recorded(events);
    expect(rows.map((row) => row.type)).toEqual(events.map((event) => event.type));
    rows.forEach((row, i) => {
      const node = renderEvent(row.id, row.occurredAt.toISOString(), row.requestId, events[i].type, events[i].data);
      expect(row.body).toBe(node);
      expect(row.fromJson).toBe(node);
    });
  });

  it('from jsonb data (what erasure rendered before it redacted in the service) write the same envelope bytes and the same value: jsonb rewrites only the text of data', async () => {
    const org = await createOrganization(app.t.prisma);
    const rows = await recorded(eventsOf(org.id));
    const envelopeOf = (text: string) => text.slice(0, text.indexOf(',"data":'));
    for (const row of rows) {
      expect(envelopeOf(row.fromJsonb)).toBe(envelopeOf(row.body));
      expect(JSON.parse(row.fromJsonb)).toStrictEqual(JSON.parse(row.body));
    }
  });

  it('erasure writes a redacted event as renderEvent writes the redacted event: same key order, no spaces, numbers as JSON.stringify writes them', async () => {
    const org = await createOrganization(app.t.prisma);
    const organizationId = org.id;
    const other = 'someone.else@example.com';
    // What must survive the redaction byte for byte: keys of different lengths in an order jsonb
    // would change (it sorts shorter keys first), numbers JSON.stringify writes in exponent form
    // (jsonb writes 1e21 in full) and strings with escapes. `extra` is no shape of event-types.ts:
    // the redaction keeps whatever else `data` holds, as it is.
    const extra = { zzz_long_key: 1e21, a: 1e-7, mid: [2 ** 53 + 2, -1.5e300, 'x, "y": z'], b: { longer_key: 1, k: 2 } };
    const events: NewEvent[] = [
      ...eventsOf(organizationId),
      { organizationId, type: 'contact.list_removed', requestId: 'req-4', contactId: 'c-1', email, data: { contact, listId: 'l-2', extra } as unknown as EventData<'contact.list_removed'> },
      { organizationId, type: 'suppression.deleted', requestId: null, email, data: { suppression: { reason: 'bounced', email, extra } as unknown as { email: string; reason: 'bounced' } } },
      { organizationId, type: 'contact.created', requestId: 'req-5', contactId: 'c-2', email: other, data: { contact: { ...contact, id: 'c-2', email: other } } },
    ];
    const rows = await recorded(events);
    const redactedCount = await app.t.prisma.database.transaction((tx) => app.t.app.get(EventsRepository).redactEventsOf(tx, organizationId, email));
    expect(redactedCount).toBe(events.filter((event) => event.email === email).length);

    const after = await app.t.prisma.$queryRawUnsafe<Array<{ body: string; email: string | null }>>(
      'SELECT body, email FROM events WHERE organization_id = $1 ORDER BY seq',
      organizationId,
    );
    expect(after).toHaveLength(events.length);
    after.forEach((row, i) => {
      const event = events[i];
      const { id, occurredAt, requestId, body } = rows[i];
      if (event.email !== email) {
        // Another address's events, and those with no address (contact.erased, list.created), are not touched.
        expect(row).toEqual({ body, email: event.email ?? null });
        return;
      }
      const data: Record<string, unknown> = { ...event.data };
      if ('contact' in data) data.contact = { id: (data.contact as { id: string }).id };
      if ('suppression' in data) data.suppression = { ...(data.suppression as object), email: null };
      expect(row.email).toBeNull();
      expect(row.body).toBe(renderEvent(id, occurredAt.toISOString(), requestId, event.type, data as EventData));
      expect(row.body).not.toContain('exämple');
    });
    // The text of the surviving values, as the writer wrote it.
    expect(after[6].body).toContain(`"listId":"l-2","extra":{"zzz_long_key":1e+21,"a":1e-7,"mid":[9007199254740994,-1.5e+300,"x, \\"y\\": z"],"b":{"longer_key":1,"k":2}}}}`);
    expect(after[7].body).toContain(`"data":{"suppression":{"reason":"bounced","email":null,"extra":{"zzz_long_key":1e+21,`);

    // Again: nothing left to redact, nothing counted, nothing written.
    expect(await app.t.prisma.database.transaction((tx) => app.t.app.get(EventsRepository).redactEventsOf(tx, organizationId, email))).toBe(0);
    expect(await app.t.prisma.$queryRawUnsafe('SELECT body, email FROM events WHERE organization_id = $1 ORDER BY seq', organizationId)).toEqual(after);
  });
});
