import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { databaseUrlOn } from '../../src/database/embedded-postgres';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, fully migrated database of its own, cloned from the template made in global setup. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_PG_SERVER_URL;
  const template = process.env.TEST_PG_TEMPLATE;
  if (!serverUrl || !template) throw new Error('Run the tests through jest (global setup prepares the database)');
  const name = `${template}_${randomBytes(6).toString('hex')}`;
  await withServer(serverUrl, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  return {
    url: databaseUrlOn(serverUrl, name),
    drop: () => withServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/** An empty database (from template0: no tables, no migrations) on the test server. */
export async function createEmptyDatabase(prefix = 'contact_sync_empty'): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_PG_SERVER_URL;
  if (!serverUrl) throw new Error('Run the tests through jest (global setup prepares the server)');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await runSql(serverUrl, `CREATE DATABASE "${name}" TEMPLATE template0`);
  return { url: databaseUrlOn(serverUrl, name), drop: () => runSql(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** One statement on a connection of its own: `url` names a database, or the server for CREATE/DROP DATABASE. */
export async function runSql(url: string, statement: string): Promise<void> {
  await withServer(url, (c) => c.query(statement));
}

async function withServer<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * createTestDatabase for the enclosing `describe`: made in beforeAll, dropped in afterAll. The object
 * returned reads through to it (`db.url` inside tests, once beforeAll has run).
 */
export function useTestDatabase(): TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  const current = () => {
    if (!database) throw new Error('useTestDatabase: read it inside a test (beforeAll makes it)');
    return database;
  };
  return {
    get url() {
      return current().url;
    },
    drop: () => current().drop(),
  };
}
