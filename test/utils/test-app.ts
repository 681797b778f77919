import type { DynamicModule, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/app-config';
import { PrismaService } from '../../src/database/prisma.service';
import { createOrgWith } from './fixtures';
import { HARNESS_DEFAULTS } from './harness-defaults';
import { createTestDatabase, type TestDatabase } from './test-database';

export { HARNESS_DEFAULTS };

export interface TestApp {
  app: NestExpressApplication;
  prisma: PrismaService;
  database: TestDatabase;
  /** supertest bound to the app's HTTP server. */
  http(): ReturnType<typeof request>;
  close(): Promise<void>;
}

/**
 * The real application (same createApp as main.ts) on a database of its own: silent logs, no
 * migrations at start (the database is cloned from the migrated template) and HARNESS_DEFAULTS, each
 * overridden by `env`, e.g. `{ ORG_RATE_LIMIT: '5' }`. Pass `database` to share one between
 * instances, `modules` to mount test-only modules next to the app's.
 */
export async function createTestApp(
  env: Record<string, string> = {},
  shared?: { database?: TestDatabase; modules?: Array<Type | DynamicModule> },
): Promise<TestApp> {
  const database = shared?.database ?? (await createTestDatabase());
  const config = loadConfig({ LOG_LEVEL: 'silent', ...HARNESS_DEFAULTS, ...env, DATABASE_URL: database.url, MIGRATE_ON_START: 'false' });
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
 * rows, or many requests racing on the same rows through a pool of 10. On a loaded machine (two Jest
 * workers and other work sharing the cores) such work can pass the defaults — statement 5 s (57014),
 * lock wait 60% of it (55P03), a pool connection within DB_CONNECT_TIMEOUT_MS 3 s — and a setup step
 * fails or a request answers 503. Here: statements a minute, lock waits 36 s, a pool connection 30 s
 * (the interactive Prisma transactions' maxWait and timeout follow: src/database/prisma.service.ts),
 * longer than the test itself may take (testTimeout 30 s), so none of them ends a test's work. What
 * the tests assert (who wins a race, what is stored, never a 500) is unchanged. A test about a
 * time-out sets its own values (and if it bounds a duration, belongs in test/timing-sensitive.js).
 */
export const ROOM_FOR_LOAD: Readonly<Record<string, string>> = { DB_STATEMENT_TIMEOUT_MS: '60000', DB_CONNECT_TIMEOUT_MS: '30000' };

/**
 * The app of the enclosing `describe`: booted in its beforeAll. Every useTestApp of a test file with
 * the same `env` gets the same app (Jest loads this module afresh for each file), closed after the
 * file's last test: a file's describes differ in what they test, not in the service they test, and
 * each test makes its own organization. Read it as `app.t` inside tests (it exists once beforeAll
 * has run).
 */
export function useTestApp(env: Record<string, string> = {}): { t: TestApp } {
  const holder = {} as { t: TestApp };
  const key = JSON.stringify(Object.entries(env).sort(([a], [b]) => a.localeCompare(b)));
  beforeAll(async () => {
    let booting = fileApps.get(key);
    if (!booting) fileApps.set(key, (booting = createTestApp(env)));
    holder.t = await booting;
  });
  return holder;
}

/** The apps of this test file's useTestApp calls, by their settings. */
const fileApps = new Map<string, Promise<TestApp>>();
// Registered when a test file first imports this module: the root of the file, after all its tests.
if (typeof afterAll === 'function') {
  afterAll(async () => {
    const booted = await Promise.allSettled(fileApps.values());
    fileApps.clear();
    await Promise.all(booted.flatMap((app) => (app.status === 'fulfilled' ? [app.value.close()] : [])));
  });
}

/** An app (createTestApp) with one organization, its API key and one list: where the raw-HTTP tests start. */
export async function createTestAppWithOrg(env: Record<string, string> = {}): Promise<{ t: TestApp; apiKey: string; listId: string }> {
  const t = await createTestApp(env);
  const org = await createOrgWith(t.prisma, { lists: ['List'] });
  return { t, apiKey: org.apiKey, listId: org.lists[0].id };
}
