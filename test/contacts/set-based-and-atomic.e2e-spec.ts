import { randomUUID } from 'node:crypto';
import type { ContactInput } from '../../src/contacts/contact-input.shape';
import { ContactsPipelineService } from '../../src/contacts/contacts-pipeline.service';
import { Database } from '../../src/database/database';
import { countStatements } from '../utils/statement-counter';
import { useTestApp } from '../utils/test-app';
import { contactCount, membershipCount } from './contacts-helpers';
import { Org } from '../contract/helpers';
import { refuseInsertsWhere } from '../utils/refuse-inserts';
import { waitUntil } from '../utils/run-service';

const emails = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);

describe('contacts pipeline: set-based and atomic', () => {
  // No webhook worker and no import worker: their polling would be counted with the request's statements.
  const app = useTestApp({ WEBHOOK_DELIVERY: 'false', IMPORT_PROCESSING: 'false' });
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

  /** Runs `body` with a BEFORE INSERT trigger on contacts named `name` (its plpgsql `check`, then RETURN NEW), dropped after. */
  async function withInsertTrigger(name: string, check: string, body: () => Promise<void>): Promise<void> {
    await app.t.prisma.$executeRawUnsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          ${check}
          RETURN NEW;
        END $$`);
    await app.t.prisma.$executeRawUnsafe(`CREATE TRIGGER ${name} BEFORE INSERT ON contacts FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    try {
      await body();
    } finally {
      await app.t.prisma.$executeRawUnsafe(`DROP TRIGGER ${name} ON contacts`);
      await app.t.prisma.$executeRawUnsafe(`DROP FUNCTION ${name}()`);
    }
  }

  it('a batch of 50 costs as many statements as a batch of 1, for creates and for updates', async () => {
    const c = await Org.withList(app.t);
    // Warm up: the first use of a key writes its lastUsedAt off the request path, and the first
    // POST of an organization reads its erasure secret once for the process (then cached).
    await c.org.get('/api/v2/lists').expect(200);
    await c.org.postBatch({ contacts: [{ email: 'warm-up@example.com', listIds: [c.list] }] });
    // That write is not awaited by the request: wait until it is stored (a fixed 100 ms before: on a
    // loaded CI machine it could still be in flight and be counted with the first batch below).
    await waitUntil('the key\'s lastUsedAt is written', async () =>
      (await app.t.prisma.apiKey.count({ where: { organizationId: c.org.id, lastUsedAt: { not: null } } })) > 0,
    );

    const batch = (list: string[], overwrite = false, city?: string) => ({
      contacts: list.map((email) => ({ email, listIds: [c.list], overwrite, ...(city ? { fields: { city } } : {}) })),
    });
    const createOne = await statementsOf(() => c.org.postBatch(batch(emails('one', 1))));
    const createFifty = await statementsOf(() => c.org.postBatch(batch(emails('fifty', 50))));
    expect(createOne).toBeGreaterThanOrEqual(3); // the counter sees the transaction
    expect(createFifty).toBe(createOne);

    const updateOne = await statementsOf(() => c.org.postBatch(batch(emails('one', 1), true, 'Paris')));
    const updateFifty = await statementsOf(() => c.org.postBatch(batch(emails('fifty', 50), true, 'Paris')));
    expect(updateFifty).toBe(updateOne);

    expect(await contactCount(app.t, c.org.id)).toBe(52); // the warm-up contact, one, fifty
    const updated = await app.t.prisma.contact.count({ where: { organizationId: c.org.id, city: 'Paris' } });
    expect(updated).toBe(51);
  });

  it('the pipeline returns the answer it stored with its writes, in the same transaction; a dry run stores nothing', async () => {
    const c = await Org.withList(app.t);
    const pipeline = app.t.app.get(ContactsPipelineService);
    const input = (email: string): ContactInput => ({ email, listIds: [c.list], fields: new Map(), overwrite: false });
    const request = (email: string, dryRun: boolean) => ({
      organizationId: c.org.id,
      endpoint: 'single' as const,
      requestId: randomUUID(),
      clientRequestId: null,
      dryRun,
      inputs: [input(email)],
    });
    const storedBody = async (requestId: string) =>
      (await app.t.prisma.storedResponse.findUnique({ where: { requestId } }))?.body ?? null;

    const created = request('answer@example.com', false);
    const { results, answer } = await pipeline.process(created);
    expect(results.map((r) => r.status)).toEqual(['created']);
    expect(answer).toMatchObject({ status: 201, body: { request_id: created.requestId, email: 'answer@example.com', status: 'created' } });
    expect(await storedBody(created.requestId)).toEqual(answer.body);

    // A request whose rows all fail rules 1–3 still stores its answer.
    const invalid = request('not-an-email', false);
    expect((await pipeline.process(invalid)).answer.status).toBe(400);
    expect(await storedBody(invalid.requestId)).toMatchObject({ status: 'failed', code: 'INVALID_EMAIL' });

    const dry = request('dry@example.com', true);
    expect((await pipeline.process(dry)).answer.body).toMatchObject({ status: 'created', dryRun: true });
    expect(await storedBody(dry.requestId)).toBeNull();

    // The answer is written in the contacts' transaction: refusing it undoes the contacts too.
    await refuseInsertsWhere(app.t.prisma, 'refuse_answer', 'stored_responses', `NEW.body::text LIKE '%refused-answer@%'`);
    await expect(pipeline.process(request('refused-answer@example.com', false))).rejects.toThrow();
    expect(await app.t.prisma.contact.count({ where: { organizationId: c.org.id, email: 'refused-answer@example.com' } })).toBe(0);
  });

  it("the statements after the write run with the pool's custom plans: the caller's in import rows, and every later transaction", async () => {
    const c = await Org.withList(app.t);
    const pipeline = app.t.app.get(ContactsPipelineService);
    const database = app.t.app.get(Database);
    const input: ContactInput = { email: 'plans@example.com', listIds: [c.list], fields: new Map(), overwrite: false };
    const mode = await database.transaction(async (tx) => {
      const rows = { organizationId: c.org.id, requestId: randomUUID(), dryRun: false, inputs: [input], hashEmail: (email: string) => email };
      expect((await pipeline.applyInTransaction(tx, rows)).map((result) => result.status)).toEqual(['created']);
      return (await tx.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0].plan_cache_mode;
    });
    expect(mode).toBe('force_custom_plan');
    await c.org.postBatch({ contacts: [{ email: 'plans-2@example.com', listIds: [c.list] }] });
    for (let i = 0; i < 3; i++) expect(await database.query('SHOW plan_cache_mode')).toEqual([{ plan_cache_mode: 'force_custom_plan' }]);
    expect(await membershipCount(app.t, c.org.id)).toBe(2);
  });

  it('list ids holding quotes, backslashes, braces and placeholders are data (INVALID_LIST), never SQL', async () => {
    const c = await Org.withList(app.t);
    const hostile = [`x'); DROP TABLE contacts; --`, 'a\\b"c', '{a,b}', 'é,\'"{}\\', '$1'];
    const res = await c.org.postBatch({ contacts: [{ email: 'quoted@example.com', listIds: [c.list, ...hostile] }] });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ status: 'failed', code: 'INVALID_LIST', invalidListIds: hostile });
    await c.org.postContact({ email: "o'brien@example.com", listIds: [c.list] }).expect(201);
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
      const c = await Org.withList(app.t);
      await c.org.postContact({ email: 'kept@example.com', listIds: [c.list], fields: { city: 'Old' } }).expect(201);
      const second = await app.t.prisma.list.create({ data: { organizationId: c.org.id, name: 'Second' } });
      const before = await snapshot(c.org.id);

      const res = await c.org.postBatch({
        contacts: [
          { email: 'fresh@example.com', listIds: [c.list] },
          { email: 'kept@example.com', listIds: [second.id], overwrite: true, fields: { city: 'New' } },
          { email: 'poison@example.com', listIds: [c.list] },
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

    it('a create the write statement did not insert is retried, then answered 500 with nothing of the batch written', async () => {
      // A row skipped under the statement (a trigger returning NULL) is what a writer bypassing the
      // email locks would cause: inserted < creates, ConcurrentInsertConflict, the whole transaction again.
      await withInsertTrigger('skip_vanishing_contact', `IF NEW.email LIKE 'vanishing%' THEN RETURN NULL; END IF;`, async () => {
        const c = await Org.withList(app.t);
        const before = await snapshot(c.org.id);
        const res = await c.org.postBatch({
          contacts: [
            { email: 'fresh@example.com', listIds: [c.list] },
            { email: 'vanishing@example.com', listIds: [c.list] },
          ],
        });
        expect(res.status).toBe(500);
        expect(await snapshot(c.org.id)).toEqual(before);
        expect(await app.t.prisma.event.count({ where: { organizationId: c.org.id } })).toBe(0);
        expect(await app.t.prisma.storedResponse.count({ where: { organizationId: c.org.id } })).toBe(0);
      });
    });

    it('a contact another writer inserted under the statement fails it (unique key), is retried, then answered 500 with nothing written', async () => {
      // The new contacts' INSERT has no ON CONFLICT: a writer bypassing the email locks (here a
      // trigger inserting the same email first) makes the unique index fail the statement, and the
      // pipeline runs the whole transaction again (MAX_ATTEMPTS = 3) before answering 500.
      await app.t.prisma.$executeRawUnsafe(`CREATE SEQUENCE raced_contact_attempts`);
      const raced = `IF NEW.email LIKE 'raced%' AND pg_trigger_depth() = 1 THEN
            PERFORM nextval('raced_contact_attempts');
            INSERT INTO contacts (id, organization_id, email) VALUES (NEW.id || '-other', NEW.organization_id, NEW.email);
          END IF;`;
      try {
        await withInsertTrigger('insert_raced_contact', raced, async () => {
          const c = await Org.withList(app.t);
          const before = await snapshot(c.org.id);
          const res = await c.org.postBatch({
            contacts: [
              { email: 'fresh@example.com', listIds: [c.list] },
              { email: 'raced@example.com', listIds: [c.list] },
            ],
          });
          expect([res.status, res.body.error?.code]).toEqual([500, 'INTERNAL_ERROR']);
          expect(JSON.stringify(res.body)).not.toMatch(/raced|INSERT|contacts|SQL/i);
          const [{ attempts }] = await app.t.prisma.$queryRawUnsafe<Array<{ attempts: bigint }>>(
            `SELECT last_value AS attempts FROM raced_contact_attempts`,
          );
          expect(Number(attempts)).toBe(3);
          expect(await snapshot(c.org.id)).toEqual(before);
          expect(await app.t.prisma.event.count({ where: { organizationId: c.org.id } })).toBe(0);
          expect(await app.t.prisma.storedResponse.count({ where: { organizationId: c.org.id } })).toBe(0);
        });
      } finally {
        await app.t.prisma.$executeRawUnsafe(`DROP SEQUENCE raced_contact_attempts`);
      }
    });

    it('rolls back created and updated contacts when the membership insert fails', async () => {
      const c = await Org.withList(app.t);
      const poison = await app.t.prisma.list.create({ data: { organizationId: c.org.id, name: 'Poison' } });
      await c.org.postContact({ email: 'kept@example.com', listIds: [c.list], fields: { city: 'Old' } }).expect(201);
      const before = await snapshot(c.org.id);

      const res = await c.org.postBatch({
        contacts: [
          { email: 'fresh@example.com', listIds: [c.list] },
          { email: 'kept@example.com', listIds: [poison.id], overwrite: true, fields: { city: 'New' } },
        ],
      });
      expect([res.status, res.body.error?.code]).toEqual([500, 'INTERNAL_ERROR']);
      expect(await snapshot(c.org.id)).toEqual(before);
    });
  });
});
