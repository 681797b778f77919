import type { DynamicModule, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/app-config';
import { PrismaService } from '../../src/database/prisma.service';
import { createOrgWith } from './fixtures';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface TestApp {
  app: NestExpressApplication;
  prisma: PrismaService;
  database: TestDatabase;
  /** supertest bound to the app's HTTP server. */
  http(): ReturnType<typeof request>;
  close(): Promise<void>;
}

/**
 * The real application (same createApp as main.ts) on a database of its own. `env` overrides
 * configuration, e.g. `{ ORG_RATE_LIMIT: '5' }`. Pass `database` to share one between instances,
 * `modules` to mount test-only modules next to the app's.
 */
export async function createTestApp(
  env: Record<string, string> = {},
  shared?: { database?: TestDatabase; modules?: Array<Type | DynamicModule> },
): Promise<TestApp> {
  const database = shared?.database ?? (await createTestDatabase());
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env, DATABASE_URL: database.url, MIGRATE_ON_START: 'false' });
  const app = await createApp({ ...config, DATABASE_URL: database.url }, shared?.modules);
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer();
  return {
    app,
    prisma: app.get(PrismaService),
    database,
    http: () => request(server),
    close: async () => {
      await app.close();
      if (!shared?.database) await database.drop();
    },
  };
}

/**
 * The database time-outs out of the way, for an app whose tests are not about them: seeding many
 * rows, or many requests racing on the same rows through a pool of 10. Under CI's load (two Jest
 * runs side by side on the 2 cores, .ci/run) work that takes a tenth of a second on a quiet machine
 * can pass the defaults — statement 5 s (57014), lock wait 3 s (55P03), a pool connection within
 * DB_CONNECT_TIMEOUT_MS 3 s — and fail a setup step or answer a request with 503. Here: statements a minute, lock waits 36 s, a pool
 * connection 30 s (the interactive Prisma transactions' maxWait and timeout follow: src/database/
 * prisma.service.ts), longer than the test itself may take (testTimeout 30 s), so none of them ends a
 * test's work. What the tests assert (who wins a race, what is stored, never a 500) is unchanged. A
 * test about a time-out sets its own values (and if it bounds a duration, belongs in
 * test/timing-sensitive.js).
 */
export const ROOM_FOR_LOAD: Readonly<Record<string, string>> = { DB_STATEMENT_TIMEOUT_MS: '60000', DB_CONNECT_TIMEOUT_MS: '30000' };

/**
 * One app for the enclosing `describe`: booted in beforeAll, closed in afterAll. Read it as
 * `app.t` inside tests (it exists once beforeAll has run).
 */
export function useTestApp(env: Record<string, string> = {}): { t: TestApp } {
  const holder = {} as { t: TestApp };
  beforeAll(async () => {
    holder.t = await createTestApp(env);
  });
  afterAll(async () => {
    await holder.t?.close();
  });
  return holder;
}

/** An app (createTestApp) with one organization, its API key and one list: where the raw-HTTP tests start. */
export async function createTestAppWithOrg(env: Record<string, string> = {}): Promise<{ t: TestApp; apiKey: string; listId: string }> {
  const t = await createTestApp(env);
  const org = await createOrgWith(t.prisma, { lists: ['List'] });
  return { t, apiKey: org.apiKey, listId: org.lists[0].id };
}
