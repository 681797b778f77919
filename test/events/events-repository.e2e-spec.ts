import { Client } from 'pg';
import type { Statement } from '../../src/database/statements';
import { EventsRepository } from '../../src/events/events.repository';
import { writeEvents } from '../../src/events/event-writes';
import { INSERT_EVENTS } from '../../src/events/events.statements';
import type { NewEvent } from '../../src/events/event-types';
import { useTestApp } from '../utils/test-app';
import { createOrganization } from '../utils/fixtures';

/** EventsRepository.record and the commit-position trigger (migrations 20261124060000_events, 20261124090000_event_position_sequence). */
describe('EventsRepository.record', () => {
  const app = useTestApp();
  const listEvent = (organizationId: string, name: string): NewEvent => ({
    organizationId,
    type: 'list.created',
    requestId: `req-${name}`,
    data: { list: { id: `id-${name}`, name, archived: false } },
  });
  const commitsOf = (organizationId: string) =>
    app.t.prisma.$queryRaw<Array<{ position: bigint; events: number }>>`
      SELECT c.position, (SELECT count(*)::int FROM events e WHERE e.organization_id = c.organization_id AND e.xid = c.xid) AS events
      FROM event_commits c WHERE c.organization_id = ${organizationId} ORDER BY c.position`;

  it('writes the events in the caller transaction, and the commit takes one position per transaction and organization', async () => {
    const org = await createOrganization(app.t.prisma);
    const other = await createOrganization(app.t.prisma);
    const events = app.t.app.get(EventsRepository);
    await app.t.prisma.database.transaction(async (tx) => {
      await events.record(tx, [listEvent(org.id, 'a'), listEvent(org.id, 'b'), listEvent(other.id, 'c')]);
    });
    await app.t.prisma.database.transaction(async (tx) => events.record(tx, [listEvent(org.id, 'd')]));

    const rows = await app.t.prisma.event.findMany({ where: { organizationId: org.id }, orderBy: { seq: 'asc' } });
    expect(rows.map((row) => [row.type, row.requestId, (JSON.parse(row.body) as { data: { list: { name: string } } }).data.list.name])).toEqual([
      ['list.created', 'req-a', 'a'],
      ['list.created', 'req-b', 'b'],
      ['list.created', 'req-d', 'd'],
    ]);
    // Positions come from one sequence shared by every organization: increasing in commit order,
    // unique, not contiguous within an organization.
    const ours = await commitsOf(org.id);
    const theirs = await commitsOf(other.id);
    expect(ours.map((commit) => commit.events)).toEqual([2, 1]);
    expect(theirs.map((commit) => commit.events)).toEqual([1]);
    expect(ours[0].position).toBeLessThan(ours[1].position);
    expect(new Set([...ours, ...theirs].map((commit) => commit.position)).size).toBe(3);
  });

  it('writes nothing, and takes no position, when the transaction rolls back', async () => {
    const org = await createOrganization(app.t.prisma);
    const events = app.t.app.get(EventsRepository);
    await expect(
      app.t.prisma.database.transaction(async (tx) => {
        await events.record(tx, [listEvent(org.id, 'x')]);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await app.t.prisma.event.count({ where: { organizationId: org.id } })).toBe(0);
    expect(await commitsOf(org.id)).toEqual([]);
  });

  it('sends no statement for no events', async () => {
    const events = app.t.app.get(EventsRepository);
    const tx = { event: { createMany: () => Promise.reject(new Error('a statement was sent')) } };
    await expect(events.record(tx as never, [])).resolves.toBeUndefined();
  });

  it('the POST pipeline insert (INSERT_EVENTS) fails rather than drop or invent an event when its arrays do not line up', async () => {
    const org = await createOrganization(app.t.prisma);
    const client = new Client({ connectionString: app.t.database.url });
    await client.connect();
    try {
      let values: unknown[] = [];
      // The values writeEvents sends, taken on their way to PostgreSQL.
      const capture = { query: (statement: Statement) => ((values = statement.values ?? []), Promise.resolve({ rows: [] })) };
      await writeEvents(capture, org.id, 'req', new Date(), [listEvent(org.id, 'a'), listEvent(org.id, 'b')]);
      const texts = values[7] as string[];
      await expect(client.query(INSERT_EVENTS.text, [...values.slice(0, 7), [texts[0]]])).rejects.toThrow(/null value/);
      await expect(client.query(INSERT_EVENTS.text, [...values.slice(0, 7), [...texts, texts[1]]])).rejects.toThrow(/null value/);
      await client.query(INSERT_EVENTS.text, values);
    } finally {
      await client.end();
    }
    const rows = await app.t.prisma.event.findMany({ where: { organizationId: org.id }, orderBy: { seq: 'asc' } });
    expect(rows.map((row) => JSON.parse(row.body) as { type: string; requestId: string; data: unknown })).toEqual([
      expect.objectContaining({ type: 'list.created', requestId: 'req', data: listEvent(org.id, 'a').data }),
      expect.objectContaining({ type: 'list.created', requestId: 'req', data: listEvent(org.id, 'b').data }),
    ]);
  });
});
