import type { PoolClient } from 'pg';
import { Database } from '../../src/database/database';
import { defineStatement, StatementRegistry } from '../../src/database/statements';
import { createTestApp, type TestApp } from '../utils/test-app';
import { statementProblems } from './statement-check';

/**
 * Every registered statement (the raw SQL of the request path, src/database/statements.ts) against
 * the migrated test database: a renamed column fails here, not on a request.
 */
describe('registered statements against the schema', () => {
  let t: TestApp;
  let client: PoolClient;
  let organizationId: string;
  beforeAll(async () => {
    t = await createTestApp(); // boots AppModule as main.ts does: every module registers its statements
    organizationId = (await t.prisma.organization.create({ data: { name: 'Statement check' } })).id;
    client = await t.app.get(Database).pool.connect();
  });
  afterAll(async () => {
    client.release();
    await t.close();
  });

  it('each prepares, runs with its sample values and returns the columns it declares', async () => {
    const statements = t.app.get(StatementRegistry).all();
    expect(statements.map((statement) => statement.name)).toEqual(
      expect.arrayContaining(['api-keys.find-by-hash', 'contacts.lock-emails', 'contacts.read-rule-context', 'contacts.write', 'events.insert', 'requests.store-answer']),
    );
    const problems: string[] = [];
    for (const statement of statements) problems.push(...(await statementProblems(client, statement, organizationId)));
    expect(problems).toEqual([]);
    // The samples wrote nothing.
    expect(await t.prisma.storedResponse.count({ where: { organizationId } })).toBe(0);
  });

  describe('the check fails', () => {
    const problemsOf = (text: string, columns: string[]) =>
      statementProblems(client, defineStatement({ name: 'check.wrong', text, columns, sample: (id) => [id] }), organizationId);

    it('on a column that does not exist', async () => {
      const problems = await problemsOf('SELECT id, nickname FROM contacts WHERE organization_id = $1', ['id', 'nickname']);
      expect(problems).toEqual([expect.stringMatching(/^check\.wrong does not prepare: column "nickname" does not exist/)]);
    });

    it('on a type that does not exist', async () => {
      const problems = await problemsOf('SELECT id FROM contacts WHERE organization_id = $1::contact_id', ['id']);
      expect(problems).toEqual([expect.stringMatching(/^check\.wrong does not prepare: type "contact_id" does not exist/)]);
    });

    it('on declared columns that differ from the returned ones (name or order)', async () => {
      expect(await problemsOf('SELECT id, email FROM contacts WHERE organization_id = $1', ['id', 'mail'])).toEqual([
        'check.wrong returns columns ["id","email"], declares ["id","mail"]',
      ]);
      expect(await problemsOf('SELECT id, email FROM contacts WHERE organization_id = $1', ['email', 'id'])).toHaveLength(1);
    });

    it('on sample values the statement cannot run with', async () => {
      const problems = await problemsOf('SELECT id FROM contacts WHERE organization_id = $1 AND created_at > $1::timestamptz', ['id']);
      expect(problems).toEqual([expect.stringMatching(/^check\.wrong (does not prepare|fails with its sample values)/)]);
    });
  });
});
