import { EventsRepository } from '../../src/events/events.repository';
import { publicEventId, type NewEvent } from '../../src/events/event-types';
import { useTestApp } from '../utils/test-app';
import { createOrganization } from '../utils/fixtures';

/**
 * The page of GET /api/v2/events is the events' stored texts (events.body, rendered by the writer
 * with JSON.stringify: renderEvent), joined by PostgreSQL (events.statements.ts, FEED_PAGE) and sent
 * as they are. The answer is byte for byte the JSON.stringify of the page built from what was
 * recorded: `evt_` id, occurredAt as toISOString, the same strings and numbers in `data` (1e21 as
 * JavaScript writes it), key order id, type, occurredAt, requestId, data (docs/events.md, "The feed").
 */
describe('GET /api/v2/events: the page as sent', () => {
  const app = useTestApp();

  it('is the JSON of the stored events, whatever their data holds', async () => {
    const org = await createOrganization(app.t.prisma);
    const awkward = {
      quote: 'say "hi", then: {go}',
      slash: 'back\\slash / and \\"',
      controls: '\u0001\u001f\b\f\n\r\t\u007f',
      unicode: 'café 漢字 😀 \u2028\u2029',
      numbers: [0, -1.5, 0.1, 1e21, 1e-7, 12345.678, 2 ** 53 + 2],
      nested: { none: null, yes: true, no: false, empty: {}, list: [] },
    };
    const events: NewEvent[] = [
      { organizationId: org.id, type: 'list.created', requestId: null, data: { list: { id: 'l1', name: 'A, "B": C', archived: false } } },
      { organizationId: org.id, type: 'field.created', requestId: 'req-1', data: { field: awkward } as never },
      { organizationId: org.id, type: 'list.updated', requestId: 'a "quoted" \\ request\u0001 id é', data: { list: { id: 'l1', name: '', archived: true } } },
    ];
    await app.t.prisma.database.transaction((tx) => app.t.app.get(EventsRepository).record(tx, events));

    const res = await app.t.http().get('/api/v2/events').set('Authorization', `Bearer ${org.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');

    const rows = await app.t.prisma.event.findMany({ where: { organizationId: org.id }, orderBy: { seq: 'asc' } });
    const expected = rows.map((row, i) => ({
      id: publicEventId(row.id),
      type: row.type,
      occurredAt: row.occurredAt.toISOString(),
      requestId: row.requestId,
      data: events[i].data,
    }));
    const answer = { request_id: res.headers['x-request-id'], events: expected, nextCursor: res.body.nextCursor };
    expect(JSON.parse(res.text)).toStrictEqual(answer);
    // The same bytes: the same keys in the same order everywhere, the same strings and numbers, no whitespace.
    expect(res.text).toBe(JSON.stringify(answer));
    expect(Object.keys(res.body)).toEqual(['request_id', 'events', 'nextCursor']);
    expect(Object.keys(res.body.events[0])).toEqual(['id', 'type', 'occurredAt', 'requestId', 'data']);
    expect(res.body.events[1].data.field).toEqual(awkward);
    expect(res.body.events[2].requestId).toBe('a "quoted" \\ request\u0001 id é');

    // After the last event: an empty page, and the same cursor again.
    const rest = await app.t.http().get(`/api/v2/events?after=${res.body.nextCursor}`).set('Authorization', `Bearer ${org.apiKey}`);
    expect(rest.status).toBe(200);
    expect(JSON.parse(rest.text)).toStrictEqual({ request_id: rest.headers['x-request-id'], events: [], nextCursor: res.body.nextCursor });
  });

  it('joins the chunks PostgreSQL renders (100 events a row) in commit order, with the cursor of the last event', async () => {
    const org = await createOrganization(app.t.prisma);
    const events: NewEvent[] = Array.from({ length: 250 }, (_, i) => ({
      organizationId: org.id,
      type: 'list.created',
      requestId: null,
      data: { list: { id: `l${i}`, name: `List ${i}`, archived: false } },
    }));
    await app.t.prisma.database.transaction((tx) => app.t.app.get(EventsRepository).record(tx, events));
    const get = (query: string) => app.t.http().get(`/api/v2/events?${query}`).set('Authorization', `Bearer ${org.apiKey}`);
    const ids = (res: { body: { events: Array<{ data: { list: { id: string } } }> } }) => res.body.events.map((event) => event.data.list.id);

    const all = await get('limit=1000');
    expect(ids(all)).toEqual(events.map((_, i) => `l${i}`));
    const first = await get('limit=150');
    expect(ids(first)).toEqual(events.slice(0, 150).map((_, i) => `l${i}`));
    const rest = await get(`limit=1000&after=${first.body.nextCursor}`);
    expect(ids(rest)).toEqual(events.slice(150).map((_, i) => `l${150 + i}`));
    expect(rest.body.nextCursor).toBe(all.body.nextCursor);
    expect((await get(`after=${all.body.nextCursor}`)).body.events).toEqual([]);
  });
});
