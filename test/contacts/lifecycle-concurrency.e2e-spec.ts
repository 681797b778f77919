import { Database } from '../../src/database/database';
import { createList } from '../utils/fixtures';
import { countStatements } from '../utils/statement-counter';
import { ROOM_FOR_LOAD, useTestApp } from '../utils/test-app';
import { Org } from '../contract/helpers';

const emails = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);

/**
 * List removal and delete (docs/api.md, "Removing from lists", "Deleting contacts"): set-based,
 * and serialized with the POST endpoints by the same per-email locks, so that no race leaves a
 * contact without a list, a membership without its contact, or half a contact.
 */
describe('list removal and delete: set-based and serialized', () => {
  // No webhook worker and no import worker: their polling would be counted with the request's statements.
  // Up to 144 requests at once racing on 6 emails through a pool of 10: under CI's load their lock and
  // pool waits can pass the default time-outs (a 503 where the race is what is tested): ROOM_FOR_LOAD.
  const app = useTestApp({ WEBHOOK_DELIVERY: 'false', IMPORT_PROCESSING: 'false', ...ROOM_FOR_LOAD });

  async function caller() {
    const c = await Org.withList(app.t);
    const other = (await createList(app.t.prisma, c.org.id, 'Other')).id;
    const auth = { Authorization: `Bearer ${c.org.key}` };
    return {
      ...c,
      other,
      removeBatch: (listId: string, list: string[]) => app.t.http().post(`/api/v2/lists/${listId}/contacts/remove`).set(auth).send({ emails: list }),
      removeOne: (listId: string, email: string) => app.t.http().delete(`/api/v2/lists/${listId}/contacts/${encodeURIComponent(email)}`).set(auth),
      deleteContact: (email: string) => app.t.http().delete(`/api/v2/contacts/${encodeURIComponent(email)}`).set(auth),
    };
  }

  /** Contacts of the organization with no membership, and memberships whose contact is in another organization or gone. */
  async function brokenInvariants(organizationId: string) {
    const rows = await app.t.prisma.$queryRaw<Array<{ listless: number; foreign: number }>>`
      SELECT (SELECT count(*)::int FROM contacts c WHERE c.organization_id = ${organizationId}
                AND NOT EXISTS (SELECT 1 FROM list_memberships m WHERE m.contact_id = c.id)) AS listless,
             (SELECT count(*)::int FROM list_memberships m JOIN lists l ON l.id = m.list_id
                LEFT JOIN contacts c ON c.id = m.contact_id
              WHERE l.organization_id = ${organizationId} AND (c.id IS NULL OR c.organization_id <> l.organization_id)) AS foreign`;
    return rows[0];
  }

  it('removing 1 or 50 contacts from a list costs the same number of statements (one transaction)', async () => {
    const c = await caller();
    const all = emails('stmt', 51);
    const made = await c.org.postBatch({ contacts: all.slice(0, 50).map((email) => ({ email, listIds: [c.list, c.other] })) });
    expect(made.body.summary.created).toBe(50);
    await c.org.postContact({ email: all[50], listIds: [c.list, c.other] }).expect(201);

    const counter = countStatements(app.t.app.get(Database).pool);
    const statementsOf = async (send: () => Promise<{ status: number; body: { results?: Array<{ status: string }> } }>) => {
      const before = counter.count;
      const res = await send();
      expect(res.status).toBe(200);
      return { statements: counter.count - before, res };
    };
    const one = await statementsOf(() => c.removeBatch(c.other, [all[50]]));
    const fifty = await statementsOf(() => c.removeBatch(c.other, all.slice(0, 50)));
    expect(one.res.body.results!.map((r) => r.status)).toEqual(['removed']);
    expect(fifty.res.body.results!.map((r) => r.status)).toEqual(Array(50).fill('removed'));
    expect(one.statements).toBeGreaterThan(0);
    expect(fifty.statements).toBe(one.statements);
    // Nothing to remove any more: fewer statements, whatever the number of rows.
    const noop1 = await statementsOf(() => c.removeBatch(c.other, [all[50]]));
    const noop50 = await statementsOf(() => c.removeBatch(c.other, all.slice(0, 50)));
    expect(noop50.statements).toBe(noop1.statements);
  });

  it('removals from two lists racing on contacts in exactly those two lists: one wins per contact, none is left without a list', async () => {
    const c = await caller();
    const shared = emails('two', 20);
    await c.org.postBatch({ contacts: shared.map((email) => ({ email, listIds: [c.list, c.other] })) }).expect(200);
    const [a, b] = await Promise.all([c.removeBatch(c.list, shared), c.removeBatch(c.other, [...shared].reverse())]);
    for (const email of shared) {
      const rowA = a.body.results.find((r: { email: string }) => r.email === email);
      const rowB = b.body.results.find((r: { email: string }) => r.email === email);
      expect([rowA.status, rowB.status].sort()).toEqual(['failed', 'removed']);
      expect([rowA.code, rowB.code].filter(Boolean)).toEqual(['LAST_LIST_MEMBERSHIP']);
    }
    expect(await brokenInvariants(c.org.id)).toEqual({ listless: 0, foreign: 0 });
  });

  it('single removals racing each other, and overwrites adding lists back: never a contact without a list', async () => {
    const c = await caller();
    const third = (await createList(app.t.prisma, c.org.id, 'Third')).id;
    const lists = [c.list, c.other, third];
    const pool = emails('churn', 6);
    await c.org.postBatch({ contacts: pool.map((email) => ({ email, listIds: lists })) }).expect(200);
    const requests: Array<Promise<{ status: number; body: { status?: string; error?: { code: string } } }>> = [];
    for (let round = 0; round < 6; round++) {
      for (const [i, email] of pool.entries()) {
        requests.push(c.removeOne(lists[(i + round) % 3], email));
        requests.push(c.removeOne(lists[(i + round + 1) % 3], email));
        requests.push(c.org.postContact({ email, listIds: [lists[(i + round + 2) % 3]], overwrite: true }));
        requests.push(c.org.postBatch({ contacts: [{ email, listIds: [lists[round % 3]], overwrite: true }] }));
      }
    }
    const responses = await Promise.all(requests);
    for (const res of responses) {
      expect(res.status).toBeLessThan(500);
      if (res.status === 409) expect(res.body.error?.code).toBe('LAST_LIST_MEMBERSHIP');
    }
    expect(await brokenInvariants(c.org.id)).toEqual({ listless: 0, foreign: 0 });
  });

  it('a delete racing creates and updates of the same email leaves the whole contact with its memberships, or nothing', async () => {
    const c = await caller();
    for (let round = 0; round < 8; round++) {
      const email = `race${round}@example.com`;
      if (round % 2) await c.org.postContact({ email, listIds: [c.list] }).expect(201);
      const responses = await Promise.all([
        c.org.postContact({ email, listIds: [c.list, c.other], fields: { city: 'Oslo' }, overwrite: true }),
        c.deleteContact(email),
        c.org.postBatch({ contacts: [{ email, listIds: [c.other], overwrite: true }] }),
        c.deleteContact(email),
        c.org.postContact({ email, listIds: [c.list] }),
      ]);
      for (const res of responses) expect(res.status).toBeLessThan(500);
      const contact = await app.t.prisma.contact.findUnique({
        where: { organizationId_email: { organizationId: c.org.id, email } },
        include: { memberships: true },
      });
      if (contact) {
        // Whoever created it last wrote all its lists: never a contact stripped of its memberships.
        expect(contact.memberships.length).toBeGreaterThan(0);
      }
      const deletes = responses.filter((res) => res.body.status === 'deleted').length;
      const creates = responses.filter((res) => res.body.status === 'created' || res.body.results?.[0]?.status === 'created').length;
      // Each successful delete removed a contact that a create (or the setup) had made.
      expect(deletes).toBeLessThanOrEqual(creates + (round % 2));
      expect(creates + (round % 2) - deletes).toBe(contact ? 1 : 0);
    }
    expect(await brokenInvariants(c.org.id)).toEqual({ listless: 0, foreign: 0 });
  });

  it('deletes and list removals racing batch overwrites over the same emails: no orphan, nothing listless', async () => {
    const c = await caller();
    const pool = emails('mix', 10);
    await c.org.postBatch({ contacts: pool.map((email) => ({ email, listIds: [c.list, c.other] })) }).expect(200);
    const requests: Array<Promise<{ status: number }>> = [];
    for (let i = 0; i < 4; i++) {
      const order = i % 2 ? [...pool].reverse() : pool;
      requests.push(c.org.postBatch({ contacts: order.map((email) => ({ email, listIds: [c.list, c.other], overwrite: true })) }));
      requests.push(c.removeBatch(c.other, order));
      requests.push(c.removeBatch(c.list, order));
      requests.push(c.deleteContact(order[i]));
    }
    const responses = await Promise.all(requests);
    expect(responses.every((res) => res.status === 200 || res.status === 404)).toBe(true);
    expect(await brokenInvariants(c.org.id)).toEqual({ listless: 0, foreign: 0 });
  });
});
