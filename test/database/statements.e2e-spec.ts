import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PoolClient } from 'pg';
import { WRITE_CONTACTS } from '../../src/contacts/contacts.statements';
import { LISTING_PAGE } from '../../src/contacts/listing/listing.statements';
import { Database } from '../../src/database/database';
import { DEMO_SEED_STATEMENTS } from '../../src/demo/demo-seed.statements';
import { defineStatement, StatementRegistry } from '../../src/database/statements';
import { createTestApp, type TestApp } from '../utils/test-app';
import { statementProblems, statementsIn, unregistered } from './statement-check';

const SRC = join(__dirname, '../../src');

/** The exports of every `*.statements.ts` file of src/, by path. */
function statementFiles(): Array<[string, Record<string, unknown>]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.statements.ts'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return files.map((path) => [path, require(join(SRC, path)) as Record<string, unknown>]);
}

/**
 * Every SQL text of the service (the registered statements, src/database/statements.ts, and the
 * demo data's, which run outside the feature modules) against the migrated test database: a
 * renamed column fails here, not on a request. Every statement a `*.statements.ts` file exports
 * must be registered (or be the demo data's), so none escapes the check, assembled or not.
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
    const statements = [...t.app.get(StatementRegistry).all(), ...DEMO_SEED_STATEMENTS];
    expect(statements.map((statement) => statement.name)).toEqual(
      expect.arrayContaining(['api-keys.find-by-hash', 'contacts.lock-emails', 'contacts.read-rule-context', 'contacts.write', 'events.insert', 'requests.store-answer']),
    );
    const problems: string[] = [];
    for (const statement of statements) problems.push(...(await statementProblems(client, statement, organizationId)));
    expect(problems).toEqual([]);
    // The samples wrote nothing.
    expect(await t.prisma.storedResponse.count({ where: { organizationId } })).toBe(0);
  });

  it('every statement a *.statements.ts file exports is registered, the assembled ones included', () => {
    const files = statementFiles();
    expect(files.map(([path]) => path)).toEqual(expect.arrayContaining([join('contacts', 'contacts.statements.ts'), join('contacts', 'listing', 'listing.statements.ts')]));
    const exported = files.flatMap(([, exports]) => statementsIn(exports));
    const names = exported.map((statement) => statement.name);
    expect(names).toEqual(expect.arrayContaining(['contacts.write', 'contacts.listing-page-members', 'contacts.listing-page-updated-list-suppressed-false']));
    expect(unregistered(exported, [...t.app.get(StatementRegistry).all(), ...DEMO_SEED_STATEMENTS])).toEqual([]);
  });

  describe('the check fails', () => {
    it('on an exported statement the registry does not hold, or holds with another text', () => {
      const statement = (name: string, text: string) => defineStatement({ name, text, columns: [], sample: () => [] });
      const exported = statementsIn({ ONE: statement('m.one', 'SELECT 1'), ALL: [statement('m.two', 'SELECT 2')], BY: { x: statement('m.three', 'SELECT 3') } });
      expect(exported.map((s) => s.name)).toEqual(['m.one', 'm.two', 'm.three']);
      expect(unregistered(exported, [statement('m.one', 'SELECT 1'), statement('m.two', 'SELECT 22')])).toEqual(['m.two', 'm.three']);
    });

    const problemsOf = (text: string, columns: string[]) =>
      statementProblems(client, defineStatement({ name: 'check.wrong', text, columns, sample: (id) => [id] }), organizationId);

    it('on a column that does not exist', async () => {
      const problems = await problemsOf('SELECT id, nickname FROM contacts WHERE organization_id = $1', ['id', 'nickname']);
      expect(problems).toEqual([expect.stringMatching(/^check\.wrong does not prepare: column "nickname" does not exist/)]);
    });

    it('on a column that does not exist in an assembled statement (a listing variant, the contacts write)', async () => {
      for (const statement of [LISTING_PAGE.members, WRITE_CONTACTS]) {
        expect(statement.text).toContain('job_title');
        const renamed = { ...statement, name: 'check.assembled', text: statement.text.replaceAll('job_title', 'job_role') };
        expect(await statementProblems(client, renamed, organizationId)).toEqual([
          expect.stringMatching(/^check\.assembled does not prepare: column \S*job_role"? (of relation "contacts" )?does not exist/),
        ]);
      }
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
