import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/app-config';
import { PrismaService } from '../../src/database/prisma.service';
import { createList, createOrganization } from '../utils/fixtures';
import { FaultDatabase } from './fault-database';

/**
 * Issue #10 "Readiness tells the truth": the embedded server's data folder deleted under the
 * running service (on a server this file owns). SELECT 1 on an open connection can still succeed
 * then, so readiness also checks the folder (PG_VERSION); API calls answer 503
 * SERVICE_UNAVAILABLE with Retry-After (the server's I/O errors, SQLSTATE class 58), never 500.
 */
describe('the embedded data folder vanishes under the running service', () => {
  let db: FaultDatabase;
  let app: NestExpressApplication;
  let base: string;
  let auth: Record<string, string>;
  let listId: string;
  let dataDir: string;

  beforeAll(async () => {
    db = await FaultDatabase.start();
    dataDir = await db.withClient(async (client) => (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0].data_directory);
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: db.url, MIGRATE_ON_START: 'false', DB_POOL_SIZE: '3', DB_CONNECT_TIMEOUT_MS: '2000' });
    app = await createApp({ ...config, DATABASE_URL: db.url, EMBEDDED_DATA_DIR: dataDir });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const prisma = app.get(PrismaService);
    const org = await createOrganization(prisma);
    auth = { Authorization: `Bearer ${org.apiKey}`, 'Content-Type': 'application/json' };
    listId = (await createList(prisma, org.id, 'Main')).id;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await db?.destroy();
  });

  const ready = () => fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(10_000) });
  let sequence = 0;
  const create = () =>
    fetch(`${base}/api/v2/contacts`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ email: `v${++sequence}@example.com`, listIds: [listId], fields: { city: 'Oslo' } }),
      signal: AbortSignal.timeout(10_000),
    });

  it('answers normally while the folder exists', async () => {
    expect((await ready()).status).toBe(200);
    expect((await create()).status).toBe(201);
  });

  it('then: /health/ready 503, and API calls 503 SERVICE_UNAVAILABLE with Retry-After, never 500', async () => {
    rmSync(dataDir, { recursive: true, force: true });

    const probe = await ready();
    expect(probe.status).toBe(503);
    expect(await probe.json()).toEqual({ status: 'unavailable' });

    for (let i = 0; i < 5; i++) {
      const res = await create();
      const body = (await res.json()) as { error?: { code: string } };
      expect({ status: res.status, code: body.error?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    const read = await fetch(`${base}/api/v2/lists`, { headers: auth, signal: AbortSignal.timeout(10_000) });
    expect(read.status).toBe(503);
  }, 60_000);
});
