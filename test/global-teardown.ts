import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { builtMarkerOf } from './utils/built';
import { faultsClusterOf } from './faults/fault-database';

export default async function globalTeardown(): Promise<void> {
  const serverUrl = process.env.TEST_PG_SERVER_URL;
  const template = process.env.TEST_PG_TEMPLATE;
  if (template) {
    rmSync(builtMarkerOf(template), { force: true });
    rmSync(`${builtMarkerOf(template)}.lock`, { recursive: true, force: true }); // left by a worker killed mid-build
    rmSync(faultsClusterOf(template), { recursive: true, force: true });
  }
  const embedded = (globalThis as { __embeddedPostgres__?: { stop(): Promise<void> } }).__embeddedPostgres__;
  if (embedded) {
    await embedded.stop();
    return;
  }
  // A shared server (DATABASE_URL): drop what this run created.
  if (!serverUrl || !template) return;
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [template, `${template}_%`],
    );
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
