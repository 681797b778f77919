import { createList, createOrgWith } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';

/**
 * Every relation of the data model is a foreign key (prisma/schema.prisma): Prisma Studio shows it,
 * and deleting an organization by hand (`DELETE FROM organizations WHERE id = ...`) deletes every
 * row that belongs to it, by cascade, with no recipe.
 */
describe('foreign keys', () => {
  const app = useTestApp({ WEBHOOK_DELIVERY: 'false' });

  /**
   * Columns named like a reference (`*_id`) that are not one, each with its reason. Any other such
   * column without a foreign key fails below until it gets one or is placed here.
   */
  const NOT_RELATIONS = [
    'events.contact_id', // the event outlives its contact (contact.deleted, erasure)
    'events.organization_id', // a trigger deletes them with the organization (schema.prisma says why)
    'events.request_id', // the X-Request-Id of the request that wrote it, not a row
    'imports.client_request_id', // the caller's own id
    'imports.request_id', // the upload's X-Request-Id
    'stored_responses.client_request_id', // the caller's own id
    'stored_responses.request_id', // the primary key: the POST's X-Request-Id
    'webhook_deliveries.contact_id', // as events.contact_id
    'webhook_deliveries.event_id', // the event's public id, copied with the event's seq
  ];

  it('gives every *_id column that names a row a foreign key', async () => {
    const rows = await app.t.prisma.$queryRaw<Array<{ name: string }>>`
      SELECT rel.relname || '.' || a.attname AS name
      FROM pg_attribute a
      JOIN pg_class rel ON rel.oid = a.attrelid
      JOIN pg_namespace n ON n.oid = rel.relnamespace
      WHERE n.nspname = 'public' AND rel.relkind = 'r' AND rel.relname <> '_prisma_migrations'
        AND a.attnum > 0 AND NOT a.attisdropped AND right(a.attname, 3) = '_id'
        AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.contype = 'f' AND con.conrelid = rel.oid AND a.attnum = ANY(con.conkey))`;
    expect(rows.map((row) => row.name).sort()).toEqual(NOT_RELATIONS);
  });

  it('has, for every foreign key, an index led by its column (a parent\'s delete finds the rows without a scan)', async () => {
    const rows = await app.t.prisma.$queryRaw<Array<{ name: string; keys: number }>>`
      SELECT con.conname AS name, cardinality(con.conkey)::int AS keys
      FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace
      WHERE con.contype = 'f' AND n.nspname = 'public'
        AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = con.conrelid AND i.indkey[0] = con.conkey[1])`;
    expect(rows).toEqual([]);
    const count = await app.t.prisma.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace WHERE con.contype = 'f' AND n.nspname = 'public'`;
    expect(count[0].n).toBeGreaterThanOrEqual(14);
  });

  it('deletes an organization and everything of it with one DELETE, and nothing of another organization', async () => {
    const org = await createOrgWith(app.t.prisma, { lists: ['Customers'], fields: [{ key: 'tier', type: 'text' }] });
    const other = await createOrgWith(app.t.prisma, { lists: ['Theirs'] });
    const post = (email: string) =>
      app.t.http().post('/api/v2/contacts').set('Authorization', `Bearer ${org.apiKey}`).send({ email, listIds: [org.lists[0].id] });
    for (const email of ['ada@example.com', 'bob@example.com']) {
      const created = await post(email); // a contact, its membership, its event and the stored answer
      expect({ status: created.status, body: created.body as unknown }).toEqual({ status: 201, body: expect.anything() });
    }
    await app.t.prisma.suppression.create({ data: { organizationId: org.id, email: 'eve@example.com', reason: 'bounced' } });
    await app.t.prisma.erasedSuppression.create({ data: { organizationId: org.id, emailHash: 'ab'.repeat(32), reason: 'complained' } });
    await createList(app.t.prisma, other.id, 'More of theirs');

    const hook = await app.t.prisma.webhook.create({
      data: { organizationId: org.id, url: 'https://93.184.216.34/h', secret: 'whsec_x', types: ['contact.created'], feedPosition: 0n, feedSeq: 0n },
    });
    const events = await app.t.prisma.$queryRaw<Array<{ id: string; seq: bigint; position: bigint }>>`
      SELECT e.id::text AS id, e.seq, c.position FROM events e JOIN event_commits c ON c.organization_id = e.organization_id AND c.xid = e.xid
      WHERE e.organization_id = ${org.id} ORDER BY c.position, e.seq`;
    expect(events).toHaveLength(2);
    const [first, second] = events;
    await app.t.prisma.webhookDelivery.create({
      data: { webhookId: hook.id, eventSeq: first.seq, eventId: first.id, type: 'contact.created', position: first.position, seq: first.seq },
    });
    await app.t.prisma.webhookLease.create({
      data: { webhookId: hook.id, token: 't', leasedBy: 'test', expiresAt: new Date(Date.now() + 60_000), positions: [second.position], seqs: [second.seq], contactIds: [], open: 1 },
    });
    await app.t.prisma.eventRetention.create({ data: { organizationId: org.id, prunedPosition: 0n, prunedSeq: 0n } });
    await app.t.prisma.import.create({
      data: {
        id: `imp_${'1'.repeat(32)}`, organizationId: org.id, status: 'queued', format: 'ndjson', overwrite: false, dryRun: false, requestId: 'r', rows: 1,
        importRows: { create: [{ row: 1, line: '{"email":"ada@example.com"}', email: 'ada@example.com' }] },
      },
    });

    const tables = await app.t.prisma.$queryRaw<Array<{ table: string }>>`
      SELECT table_name AS table FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'organization_id' ORDER BY table_name`;
    const rowsOf = async (organizationId: string) => {
      const counts: Record<string, number> = {};
      for (const { table } of tables) {
        const [row] = await app.t.prisma.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${table}" WHERE organization_id = $1`, organizationId);
        counts[table] = row.n;
      }
      return counts;
    };
    const byWebhook = async () => ({
      deliveries: await app.t.prisma.webhookDelivery.count({ where: { webhookId: hook.id } }),
      leases: await app.t.prisma.webhookLease.count({ where: { webhookId: hook.id } }),
    });
    const memberships = () => app.t.prisma.listMembership.count({ where: { listId: org.lists[0].id } });

    const before = await rowsOf(org.id);
    // Every table that holds an organization's rows has some, so the delete below is tested on each.
    expect(Object.entries(before).filter(([, n]) => n === 0)).toEqual([]);
    expect(await byWebhook()).toEqual({ deliveries: 1, leases: 1 });
    expect(await memberships()).toBe(2);
    const theirs = await rowsOf(other.id);

    await app.t.prisma.$executeRaw`DELETE FROM organizations WHERE id = ${org.id}`;

    expect(Object.entries(await rowsOf(org.id)).filter(([, n]) => n > 0)).toEqual([]);
    expect(await byWebhook()).toEqual({ deliveries: 0, leases: 0 });
    expect(await memberships()).toBe(0);
    expect(await app.t.prisma.importRow.count({ where: { importId: `imp_${'1'.repeat(32)}` } })).toBe(0);
    expect(await rowsOf(other.id)).toEqual(theirs);
  });
});
