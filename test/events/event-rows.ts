import type { TestApp } from '../utils/test-app';
import { refuseInsertsWhere } from '../utils/refuse-inserts';

/** An event row as stored (events table), oldest first. */
export interface EventRow {
  type: string;
  requestId: string | null;
  contactId: string | null;
  email: string | null;
  /* eslint-disable-next-line @typescript-eslint/no-explicit-any -- event data is checked by value */
  data: any;
}

/**
 * Every event of the organization as the feed reads them: only events whose transaction has its
 * commit position (event_commits, taken at COMMIT), in commit order. The count of all its event
 * rows must match, so an event written without a commit position fails the test.
 */
export async function eventsOf(t: TestApp, organizationId: string): Promise<EventRow[]> {
  const rows = await t.prisma.$queryRawUnsafe<EventRow[]>(
    `SELECT e.type, e.request_id AS "requestId", e.contact_id AS "contactId", e.email, e.body::jsonb -> 'data' AS data
     FROM event_commits c JOIN events e ON e.organization_id = c.organization_id AND e.xid = c.xid
     WHERE c.organization_id = $1 ORDER BY c.position, e.seq`,
    organizationId,
  );
  const [all] = await t.prisma.$queryRawUnsafe<Array<{ n: number }>>('SELECT count(*)::int AS n FROM events WHERE organization_id = $1', organizationId);
  expect(rows).toHaveLength(all.n);
  return rows;
}

let refusals = 0;

/**
 * Makes PostgreSQL refuse every event insert of this organization while `run` runs (a real error
 * inside the app's transaction), then lifts the refusal: how a test proves the change and its event
 * commit together (the change must be gone too).
 */
export async function withEventsRefused<T>(t: TestApp, organizationId: string, run: () => Promise<T>): Promise<T> {
  refusals += 1;
  const name = `refuse_events_${refusals}_${process.pid}`;
  await refuseInsertsWhere(t.prisma, name, 'events', `NEW.organization_id::text = '${organizationId}'`);
  try {
    return await run();
  } finally {
    await t.prisma.$executeRawUnsafe(`DROP TRIGGER ${name} ON events`);
    await t.prisma.$executeRawUnsafe(`DROP FUNCTION ${name}()`);
  }
}
