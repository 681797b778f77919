import { EventsRepository } from '../../src/events/events.repository';
import { eventJsonSql } from '../../src/events/events.statements';
import { renderEvent, type EventContact, type NewEvent } from '../../src/events/event-types';
import { createOrganization } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';

/**
 * The two renderings of an event's text: renderEvent (Node, every writer) and eventJsonSql
 * (PostgreSQL, for the rows SQL rewrites: erasure). Given the same `data` text they must write the
 * same bytes: the envelope (id, type, occurredAt, requestId and its escaping) is theirs. From jsonb
 * `data` (erasure's), PostgreSQL writes data's text its own way: a space after every `:` and `,`,
 * jsonb's key order (shorter keys first), numbers in full (docs/events.md, "The feed").
 */
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
    await app.t.prisma.$transaction((tx) => app.t.app.get(EventsRepository).record(tx, events));
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

  it('from jsonb data (what erasure renders) write the same envelope bytes and the same value: jsonb rewrites only the text of data', async () => {
    const org = await createOrganization(app.t.prisma);
    const rows = await recorded(eventsOf(org.id));
    const envelopeOf = (text: string) => text.slice(0, text.indexOf(',"data":'));
    for (const row of rows) {
      expect(envelopeOf(row.fromJsonb)).toBe(envelopeOf(row.body));
      expect(JSON.parse(row.fromJsonb)).toStrictEqual(JSON.parse(row.body));
    }
  });
});
