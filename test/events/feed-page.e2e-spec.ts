import { EventsRepository } from '../../src/events/events.repository';
import { publicEventId, type NewEvent } from '../../src/events/event-types';
import { useTestApp } from '../utils/test-app';
import { createOrganization } from '../utils/fixtures';

/**
 * The page of GET /api/v2/events is read by a registered statement on the pg pool
 * (events.statements.ts, FEED_PAGE): its answer is byte for byte the JSON.stringify of the events
 * as the database holds them (what the Prisma read rendered before): `evt_` id, occurredAt as
 * toISOString, the same escapes and numbers in `data`, key order id, type, occurredAt, requestId, data.
 */
describe('GET /api/v2/events: the page as sent', () => {
  const app = useTestApp();

  it('is the JSON.stringify of the stored events, whatever their data holds', async () => {
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
    ];
    await app.t.prisma.$transaction((tx) => app.t.app.get(EventsRepository).record(tx, events));

    const res = await app.t.http().get('/api/v2/events').set('Authorization', `Bearer ${org.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');

    const rows = await app.t.prisma.event.findMany({ where: { organizationId: org.id }, orderBy: { seq: 'asc' } });
    const expected = rows.map((row) => ({
      id: publicEventId(row.id),
      type: row.type,
      occurredAt: row.occurredAt.toISOString(),
      requestId: row.requestId,
      data: row.data,
    }));
    expect(res.text).toBe(JSON.stringify({ request_id: res.headers['x-request-id'], events: expected, nextCursor: res.body.nextCursor }));
    expect(Object.keys(res.body.events[0])).toEqual(['id', 'type', 'occurredAt', 'requestId', 'data']);
    expect(res.body.events[1].data.field).toEqual(awkward);
  });
});
