import { EventsRepository } from '../../src/events/events.repository';
import { EventsSweeper } from '../../src/events/events.sweeper';
import type { NewEvent } from '../../src/events/event-types';
import { createOrganization } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';

/** The retention sweep (EVENT_RETENTION_DAYS=1 here): set-based, in chunks, moving the retention boundary. */
describe('events retention sweep', () => {
  const app = useTestApp({ EVENT_RETENTION_DAYS: '1', WEBHOOK_DELIVERY: 'false' });
  const listEvent = (organizationId: string, name: string): NewEvent => ({
    organizationId,
    type: 'list.created',
    data: { list: { id: name, name, archived: false } },
  });

  /** `transactions` transactions of `perTransaction` events each for the organization. */
  async function commit(organizationId: string, transactions: number, perTransaction: number): Promise<void> {
    const events = app.t.app.get(EventsRepository);
    for (let i = 0; i < transactions; i++) {
      await app.t.prisma.database.transaction((tx) => events.record(tx, Array.from({ length: perTransaction }, (_, k) => listEvent(organizationId, `${i}.${k}`))));
    }
  }
  const positions = async (organizationId: string) =>
    (await app.t.prisma.eventCommit.findMany({ where: { organizationId }, orderBy: { position: 'asc' }, select: { position: true } })).map((c) => Number(c.position));

  it('deletes, chunk after chunk, every transaction committed before the retention period, and only those', async () => {
    const org = await createOrganization(app.t.prisma);
    const other = await createOrganization(app.t.prisma);
    await commit(org.id, 7, 3);
    await commit(other.id, 2, 1);
    // The first five commits of org and the first of other committed two days ago (positions come
    // from one sequence shared by every organization: increasing, not contiguous).
    const ours = await positions(org.id);
    const theirs = await positions(other.id);
    await app.t.prisma.$executeRaw`
      UPDATE event_commits SET committed_at = now() - interval '2 days'
      WHERE (organization_id = ${org.id} AND position <= ${ours[4]}) OR (organization_id = ${other.id} AND position = ${theirs[0]})`;

    const deleted = await app.t.app.get(EventsSweeper).sweep(2); // three chunks of at most two transactions
    expect(deleted).toBe(5 * 3 + 1);
    expect(await positions(org.id)).toEqual(ours.slice(5));
    expect(await positions(other.id)).toEqual(theirs.slice(1));
    expect(await app.t.prisma.event.count({ where: { organizationId: org.id } })).toBe(2 * 3);

    const seqsOf5 = await app.t.prisma.eventRetention.findUniqueOrThrow({ where: { organizationId: org.id } });
    expect(seqsOf5.prunedPosition).toBe(BigInt(ours[4]));
    const kept = await app.t.prisma.event.findMany({ where: { organizationId: org.id }, select: { seq: true } });
    expect(kept.every((event) => event.seq > seqsOf5.prunedSeq)).toBe(true);
    expect((await app.t.prisma.eventRetention.findUniqueOrThrow({ where: { organizationId: other.id } })).prunedPosition).toBe(BigInt(theirs[0]));

    // Nothing more to delete: the boundary stays.
    expect(await app.t.app.get(EventsSweeper).sweep(2)).toBe(0);
    expect((await app.t.prisma.eventRetention.findUniqueOrThrow({ where: { organizationId: org.id } })).prunedPosition).toBe(BigInt(ours[4]));
  });

  it('deletes the webhooks\' deliveries log of the deleted events, in every state, and keeps the others\'', async () => {
    const org = await createOrganization(app.t.prisma);
    await commit(org.id, 3, 2);
    const [old, kept] = [(await positions(org.id))[0], (await positions(org.id)).slice(1)];
    await app.t.prisma.$executeRaw`UPDATE event_commits SET committed_at = now() - interval '2 days' WHERE organization_id = ${org.id} AND position = ${old}`;
    const hook = await app.t.prisma.webhook.create({ data: { organizationId: org.id, url: 'https://93.184.216.34/h', secret: 'whsec_x', types: ['list.created'], feedPosition: 0n, feedSeq: 0n } });
    const events = await app.t.prisma.$queryRaw<Array<{ id: string; seq: bigint; position: bigint }>>`
      SELECT e.id::text AS id, e.seq, c.position FROM events e JOIN event_commits c ON c.organization_id = e.organization_id AND c.xid = e.xid
      WHERE e.organization_id = ${org.id} ORDER BY c.position, e.seq`;
    const states = ['delivered', 'failed', 'pending'];
    await app.t.prisma.webhookDelivery.createMany({
      data: events.map((event, i) => ({
        webhookId: hook.id, eventSeq: event.seq, eventId: event.id, type: 'list.created', position: event.position, seq: event.seq,
        state: states[i % 3], nextAttemptAt: null,
      })),
    });

    await app.t.app.get(EventsSweeper).sweep();
    const left = await app.t.prisma.webhookDelivery.findMany({ where: { webhookId: hook.id }, select: { position: true } });
    expect(left.map((d) => Number(d.position)).sort((a, b) => a - b)).toEqual(kept.flatMap((p) => [p, p]));
  });
});
