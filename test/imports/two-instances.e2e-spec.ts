/**
 * Contract 17: processing is shared by every instance on one database. Two app instances take
 * imports of several organizations; one closes mid-import and the other continues it. Every row is
 * applied once (created, never a second time as DUPLICATE_EMAIL) and has exactly one result.
 */
import { Client } from 'pg';
import { Org } from '../contract/helpers';
import { createOrgWith } from '../utils/fixtures';
import { waitUntil } from '../utils/run-service';
import { createTestApp, type TestApp } from '../utils/test-app';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';
import { ndjson, upload } from './import-helpers';

jest.setTimeout(120_000);

const ROWS = 400;
const ENV = { IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', IMPORT_CHUNK_ROWS: '20', IMPORT_LEASE_SECONDS: '3' };

describe('imports shared by two instances', () => {
  let database: TestDatabase;
  let apps: TestApp[] = [];
  let pg: Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    apps = [await createTestApp(ENV, { database }), await createTestApp(ENV, { database })];
    pg = new Client({ connectionString: database.url });
    await pg.connect();
  });

  afterAll(async () => {
    await pg?.end();
    for (const app of apps) await app.close().catch(() => undefined);
    await database?.drop();
  });

  it('completes every import, each row applied once with exactly one result, across an instance closing mid-import', async () => {
    const orgs: Array<{ org: Org; list: string }> = [];
    for (let i = 0; i < 3; i++) {
      const made = await createOrgWith(apps[0].prisma, { lists: ['Main'] });
      orgs.push({ org: new Org(apps[i % 2], made.id, made.apiKey), list: made.lists[0].id });
    }
    const ids: string[] = [];
    for (const [n, { org, list }] of orgs.entries()) {
      const rows = Array.from({ length: ROWS }, (_, i) => ({ email: `o${n}-r${i}@example.com`, listIds: [list] }));
      const res = await upload(org, ndjson(rows));
      expect(res.status).toBe(202);
      ids.push(res.body.import.id);
    }
    const progress = async () =>
      (await pg.query<{ processed: number; status: string }>('SELECT processed, status FROM imports WHERE id = ANY($1)', [ids])).rows;
    await waitUntil('some rows processed', async () => (await progress()).some((row) => row.processed > 0), 30_000);
    // The first instance stops mid-import: its leases are released, the second continues.
    await apps[0].close();
    await waitUntil('every import completed', async () => (await progress()).every((row) => row.status === 'completed'), 90_000);

    const { rows: imports } = await pg.query('SELECT id, rows, processed, created, failed FROM imports WHERE id = ANY($1)', [ids]);
    for (const row of imports) expect(row).toMatchObject({ rows: ROWS, processed: ROWS, created: ROWS, failed: 0 });
    const { rows: [results] } = await pg.query(
      `SELECT count(*)::int AS rows, count(result)::int AS results, count(*) FILTER (WHERE status = 'created')::int AS created
       FROM import_rows WHERE import_id = ANY($1)`,
      [ids],
    );
    expect(results).toEqual({ rows: 3 * ROWS, results: 3 * ROWS, created: 3 * ROWS });
    const { rows: [written] } = await pg.query(
      `SELECT (SELECT count(*)::int FROM contacts WHERE organization_id = ANY($1)) AS contacts,
              (SELECT count(*)::int FROM events WHERE organization_id = ANY($1) AND type = 'contact.created') AS created_events,
              (SELECT count(*)::int FROM events WHERE organization_id = ANY($1) AND type = 'import.finished') AS finished_events`,
      [orgs.map(({ org }) => org.id)],
    );
    expect(written).toEqual({ contacts: 3 * ROWS, created_events: 3 * ROWS, finished_events: 3 });
  });
});
