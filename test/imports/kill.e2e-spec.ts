/**
 * Contract 17: "each row is applied at most once and receives exactly one result, also when the
 * instance processing it dies (another instance, or the restarted one, continues within a
 * minute)". The built service is killed with SIGKILL mid-import; another process completes it.
 */
import { Client } from 'pg';
import { createOrgOn } from '../utils/fixtures';
import { freePort, isListening, rawPost } from '../utils/net';
import { type ServiceProcess, startService, waitUntil } from '../utils/run-service';
import { createTestDatabase, type TestDatabase } from '../utils/test-database';

jest.setTimeout(180_000);

const ROWS = 3000;

describe('an import survives SIGKILL of its processing instance', () => {
  let database: TestDatabase;
  let pg: Client;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    pg = new Client({ connectionString: database.url });
    await pg.connect();
  });

  afterAll(async () => {
    for (const service of services) if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    await Promise.all(services.map((service) => service.exit));
    await pg?.end();
    await database?.drop();
  });

  async function start(): Promise<{ service: ServiceProcess; port: number }> {
    const port = await freePort();
    const service = startService({
      DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn',
      IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '1000000', REDIS_URL: undefined, IMPORT_CHUNK_ROWS: '25', IMPORT_LEASE_SECONDS: '3',
    });
    services.push(service);
    await waitUntil('the instance listens', () => isListening(port), 150_000).catch((error: Error) => {
      throw new Error(`${error.message}:\n${service.output().slice(-3000)}`);
    });
    return { service, port };
  }

  it('another process completes it: every row applied once, exactly one result each', async () => {
    const org = await createOrgOn(database.url, { lists: ['Main'] });
    const listId = org.lists[0].id;
    const first = await start();
    const file = Buffer.from(Array.from({ length: ROWS }, (_, i) => JSON.stringify({ email: `k${i}@example.com`, listIds: [listId] })).join('\n'));
    const res = await rawPost(first.port, '/api/v2/imports', {
      Authorization: `Bearer ${org.apiKey}`, 'Content-Type': 'application/x-ndjson', 'Content-Length': String(file.length),
    }, [file]);
    expect(res.status).toBe(202);
    const id = (JSON.parse(res.body) as { import: { id: string } }).import.id;
    const state = async () => (await pg.query<{ processed: number; status: string }>('SELECT processed, status FROM imports WHERE id = $1', [id])).rows[0];
    await waitUntil('the import is under way', async () => (await state()).processed >= 100, 60_000);
    first.service.child.kill('SIGKILL');
    await first.service.exit;
    const killedAt = await state();
    expect(killedAt.processed).toBeLessThan(ROWS);

    await start();
    await waitUntil('the import completed', async () => (await state()).status === 'completed', 60_000);
    const { rows: [row] } = await pg.query('SELECT rows, processed, created, failed FROM imports WHERE id = $1', [id]);
    expect(row).toEqual({ rows: ROWS, processed: ROWS, created: ROWS, failed: 0 });
    const { rows: [counts] } = await pg.query(
      `SELECT (SELECT count(*)::int FROM import_rows WHERE import_id = $1 AND result IS NOT NULL) AS results,
              (SELECT count(*)::int FROM contacts WHERE organization_id = $2) AS contacts,
              (SELECT count(*)::int FROM events WHERE organization_id = $2 AND type = 'contact.created') AS events`,
      [id, org.id],
    );
    expect(counts).toEqual({ results: ROWS, contacts: ROWS, events: ROWS });
  });
});
