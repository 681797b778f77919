import type { ContactInput } from '../../src/contacts/contact-input.shape';
import { ContactsPipelineService } from '../../src/contacts/contacts-pipeline.service';
import { Database } from '../../src/database/database';
import { countStatements } from '../utils/statement-counter';
import { useTestApp } from '../utils/test-app';
import { contactCount, membershipCount, setUpCaller } from './contacts-helpers';
import { refuseInsertsWhere } from '../utils/refuse-inserts';

const emails = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);

describe('contacts pipeline: set-based and atomic', () => {
  const app = useTestApp();
  let statements: { readonly count: number };
  beforeAll(() => {
    statements = countStatements(app.t.app.get(Database).pool);
  });

  /** Statements the app sends to PostgreSQL while answering one request. */
  async function statementsOf(send: () => Promise<{ status: number }>): Promise<number> {
    const before = statements.count;
    const res = await send();
    expect(res.status).toBe(200);
    return statements.count - before;
  }

  it('a batch of 50 costs as many statements as a batch of 1, for creates and for updates', async () => {
    const c = await setUpCaller(app.t);
    // Warm up: the first use of a key writes its lastUsedAt off the request path.
    await c.getPath('/api/v2/lists').expect(200);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const batch = (list: string[], overwrite = false, city?: string) => ({
      contacts: list.map((email) => ({ email, listIds: [c.list.id], overwrite, ...(city ? { fields: { city } } : {}) })),
    });
    const createOne = await statementsOf(() => c.postBatch(batch(emails('one', 1))));
    const createFifty = await statementsOf(() => c.postBatch(batch(emails('fifty', 50))));
    expect(createOne).toBeGreaterThanOrEqual(3); // the counter sees the transaction
    expect(createFifty).toBe(createOne);

    const updateOne = await statementsOf(() => c.postBatch(batch(emails('one', 1), true, 'Paris')));
    const updateFifty = await statementsOf(() => c.postBatch(batch(emails('fifty', 50), true, 'Paris')));
    expect(updateFifty).toBe(updateOne);

    expect(await contactCount(app.t, c.org.id)).toBe(51);
    const updated = await app.t.prisma.contact.count({ where: { organizationId: c.org.id, city: 'Paris' } });
    expect(updated).toBe(51);
  });

  it('runs the inTransaction hook inside the write transaction, with the results, and never on a dry run', async () => {
    const c = await setUpCaller(app.t);
    const pipeline = app.t.app.get(ContactsPipelineService);
    const input = (email: string): ContactInput => ({ email, listIds: [c.list.id], fields: new Map(), overwrite: false });
    const seen: unknown[] = [];

    await expect(
      pipeline.process(c.org.id, [input('hook@example.com')], {
        dryRun: false,
        inTransaction: async (tx, results) => {
          seen.push(results.map((r) => r.status));
          // The hook sees the transaction's own writes...
          const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1', [
            c.org.id,
          ]);
          seen.push(rows[0].n);
          throw new Error('storing the response failed');
        },
      }),
    ).rejects.toThrow('storing the response failed');
    // ...and its failure undoes them.
    expect(seen).toEqual([['created'], 1]);
    expect(await contactCount(app.t, c.org.id)).toBe(0);

    const hook = jest.fn(() => Promise.resolve());
    await pipeline.process(c.org.id, [input('hook@example.com')], { dryRun: true, inTransaction: hook });
    expect(hook).not.toHaveBeenCalled();
    // A request whose rows all fail rules 1–3 still gets its transaction for the hook.
    await pipeline.process(c.org.id, [input('not-an-email')], { dryRun: false, inTransaction: hook });
    expect(hook).toHaveBeenCalledTimes(1);
  });

  it('list ids holding quotes, backslashes, braces and placeholders are data (INVALID_LIST), never SQL', async () => {
    const c = await setUpCaller(app.t);
    const hostile = [`x'); DROP TABLE contacts; --`, 'a\\b"c', '{a,b}', 'é,\'"{}\\', '$1'];
    const res = await c.postBatch({ contacts: [{ email: 'quoted@example.com', listIds: [c.list.id, ...hostile] }] });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ status: 'failed', code: 'INVALID_LIST', invalidListIds: hostile });
    await c.postContact({ email: "o'brien@example.com", listIds: [c.list.id] }).expect(201);
    expect(await contactCount(app.t, c.org.id)).toBe(1);
  });

  describe('when the database fails during the writes', () => {
    beforeAll(async () => {
      // Real failures inside the transaction, raised by PostgreSQL itself.
      await refuseInsertsWhere(app.t.prisma, 'refuse_poison_contact', 'contacts', "NEW.email LIKE 'poison%'");
      await refuseInsertsWhere(
        app.t.prisma,
        'refuse_poison_membership',
        'list_memberships',
        "EXISTS (SELECT 1 FROM lists WHERE id = NEW.list_id AND name = 'Poison')",
      );
    });

    async function snapshot(organizationId: string) {
      const contacts = await app.t.prisma.contact.findMany({ where: { organizationId }, orderBy: { email: 'asc' } });
      return { contacts, memberships: await membershipCount(app.t, organizationId) };
    }

    it('answers 500 INTERNAL_ERROR without internals and writes nothing of the batch (failed contact insert)', async () => {
      const c = await setUpCaller(app.t);
      await c.postContact({ email: 'kept@example.com', listIds: [c.list.id], fields: { city: 'Old' } }).expect(201);
      const second = await app.t.prisma.list.create({ data: { organizationId: c.org.id, name: 'Second' } });
      const before = await snapshot(c.org.id);

      const res = await c.postBatch({
        contacts: [
          { email: 'fresh@example.com', listIds: [c.list.id] },
          { email: 'kept@example.com', listIds: [second.id], overwrite: true, fields: { city: 'New' } },
          { email: 'poison@example.com', listIds: [c.list.id] },
        ],
      });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        request_id: res.headers['x-request-id'],
        error: { code: 'INTERNAL_ERROR', message: expect.any(String) },
      });
      expect(JSON.stringify(res.body)).not.toMatch(/poison|INSERT|contacts|SQL/i);
      expect(await snapshot(c.org.id)).toEqual(before);
    });

    it('rolls back created and updated contacts when the membership insert fails', async () => {
      const c = await setUpCaller(app.t);
      const poison = await app.t.prisma.list.create({ data: { organizationId: c.org.id, name: 'Poison' } });
      await c.postContact({ email: 'kept@example.com', listIds: [c.list.id], fields: { city: 'Old' } }).expect(201);
      const before = await snapshot(c.org.id);

      const res = await c.postBatch({
        contacts: [
          { email: 'fresh@example.com', listIds: [c.list.id] },
          { email: 'kept@example.com', listIds: [poison.id], overwrite: true, fields: { city: 'New' } },
        ],
      });
      expect([res.status, res.body.error?.code]).toEqual([500, 'INTERNAL_ERROR']);
      expect(await snapshot(c.org.id)).toEqual(before);
    });
  });
});
