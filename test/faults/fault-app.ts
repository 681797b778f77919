import type { Scope } from '../../src/auth/scope-names';
import type { AddressInfo } from 'node:net';
import type { DynamicModule, Type } from '@nestjs/common';
import { createApiKey, createOrgWith } from '../utils/fixtures';
import { createTestApp, type TestApp } from '../utils/test-app';
import { FaultDatabase } from './fault-database';

/** The app under a fault test, on a PostgreSQL the test owns, and the organization it calls as. */
export interface FaultApp {
  db: FaultDatabase;
  t: TestApp;
  /** http://127.0.0.1:port of the listening app. */
  base: string;
  organizationId: string;
  /** The organization's key (contacts:write) with a JSON content type, for fetch. */
  auth: Record<string, string>;
  /** The ids of the lists asked for, in order, and the first of them. */
  lists: string[];
  listId: string;
}

/**
 * Starts a PostgreSQL of the test's own (FaultDatabase), the app on it with `env` (rate limits out
 * of the way unless `env` sets them), and an organization with its key and `lists`. On a failure
 * the database is destroyed before the error is rethrown.
 */
export async function startFaultApp(
  env: Record<string, string>,
  options: { lists?: string[]; modules?: Array<Type | DynamicModule>; scope?: Scope } = {},
): Promise<FaultApp> {
  const db = await FaultDatabase.start();
  try {
    const t = await createTestApp(
      env,
      { database: { url: db.url, drop: () => Promise.resolve() }, modules: options.modules },
    );
    const base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const org = await createOrgWith(t.prisma, { lists: options.lists ?? ['Main'] });
    // A key of another scope when the routes under test need it (docs/api.md, "Key scopes").
    const key = options.scope ? (await createApiKey(t.prisma, org.id, { scope: options.scope })).key : org.apiKey;
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    return { db, t, base, organizationId: org.id, auth, lists: org.lists.map((list) => list.id), listId: org.lists[0]?.id };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/** Closes the app, then destroys its database; either may be missing when beforeAll failed. */
export async function stopFaultApp(db: FaultDatabase | undefined, t: TestApp | undefined): Promise<void> {
  await t?.close();
  await db?.destroy();
}

/**
 * startFaultApp before the file's tests (within `timeoutMs`) and stopFaultApp after them; the object
 * returned is filled in by the time the tests (and any later beforeAll) run.
 */
export function useFaultApp(env: Record<string, string>, options: Parameters<typeof startFaultApp>[1] = {}, timeoutMs = 60_000): FaultApp {
  const app = {} as FaultApp;
  beforeAll(async () => {
    Object.assign(app, await startFaultApp(env, options));
  }, timeoutMs);
  afterAll(() => stopFaultApp(app.db, app.t));
  return app;
}

/**
 * `workers` clients each sending requests back to back (`send(i)`, i counting from the worker's
 * number) while `inject` runs; every answer is returned once all have stopped.
 */
export async function sendWhile<T>(workers: number, send: (i: number) => Promise<T>, inject: () => Promise<void>): Promise<T[]> {
  const outcomes: T[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; running; i++) outcomes.push(await send(i));
  });
  try {
    await inject();
  } finally {
    running = false;
    await Promise.all(loops);
  }
  return outcomes;
}
