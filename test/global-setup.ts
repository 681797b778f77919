import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { databaseUrlOn, ensureDatabase, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { applyMigrations } from '../src/database/migrations';
import { freePort } from './utils/net';

/**
 * Once per `npm test`: a PostgreSQL server (the one in DATABASE_URL, else a throw-away embedded
 * one) and a template database with every migration applied by `prisma migrate deploy`. Each
 * test file then clones the template (test/utils/test-database.ts), which takes milliseconds.
 */
export default async function globalSetup(): Promise<void> {
  let serverUrl: string;
  if (process.env.DATABASE_URL) {
    serverUrl = databaseUrlOn(process.env.DATABASE_URL, 'postgres');
  } else {
    const port = await freePort();
    const parent = mkdtempSync(path.join(os.tmpdir(), 'contact-sync-test-'));
    chmodSync(parent, 0o755); // as root, PostgreSQL runs as its own user and must reach the folder
    const server = await startEmbeddedPostgres({
      dataDir: path.join(parent, 'pg'),
      port,
      persistent: false,
    });
    // Stopping removes the throw-away data folder; the folder around it goes too.
    const stop = () => server.stop().then(() => rmSync(parent, { recursive: true, force: true }));
    (globalThis as { __embeddedPostgres__?: typeof server }).__embeddedPostgres__ = { ...server, stop };
    serverUrl = server.serverUrl;
  }
  const template = `contact_sync_template_${process.pid}`;
  await ensureDatabase(serverUrl, template);
  await applyMigrations(databaseUrlOn(serverUrl, template));
  process.env.TEST_PG_SERVER_URL = serverUrl;
  process.env.TEST_PG_TEMPLATE = template;
}
