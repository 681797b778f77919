import { Client } from 'pg';
import type { TestApp } from '../utils/test-app';
import { createOrgWith } from '../utils/fixtures';

/**
 * An organization with `count` contacts written straight to the table (no events: enough rows for
 * several FETCHes of an export), and an open pg connection to its database that the caller ends.
 */
export async function orgWithFillerContacts(t: TestApp, count: number) {
  const org = await createOrgWith(t.prisma, { lists: ['A'] });
  const pg = new Client({ connectionString: t.database.url });
  await pg.connect();
  await pg.query(
    `INSERT INTO contacts (organization_id, email, first_name) SELECT $1, 'c' || lpad(i::text, 6, '0') || '@example.com', repeat('x', 200) FROM generate_series(1, $2::int) AS i`,
    [org.id, count],
  );
  return { org, pg };
}
