import type { Client } from 'pg';
import { encodeCursor } from '../../src/contacts/listing/listing-query';
import { withClient } from '../harness/database';
import { log, percentiles, round } from '../harness/figures';
import type { Fixtures } from '../harness/fixtures';
import type { BenchContext, Scenario } from '../harness/scenario';

/** Timed pages per filter unless BENCH_REQUESTS says otherwise. */
const DEFAULT_PAGES = 200;
const DAY_MS = 86_400_000;

/**
 * With `--existing N` only: GET /api/v2/contacts, pages of 1,000 of the organization holding the
 * existing contacts, one request at a time, each starting at a random position of the walk (a cursor
 * made with the service's own encoder), for every filter alone and their combinations: p50/p95/p99,
 * contacts a page, the service's CPU a page and the costliest statements. The data: every contact in
 * the big list (100%), every 10th in a second list, every 100th in a third (1%) and every 33rd in a
 * fourth (3%: where walking the email index and gathering the list's members cost about the same,
 * the planner's worst case); every 50th suppressed (2%); updatedAt spread evenly over the last 100
 * days. `BENCH_ONLY=listing:<part>` runs only the filters whose name holds <part>.
 */
export const listing: Scenario = {
  name: 'listing',
  phases: ['existing'],
  run: async (ctx) => {
    const { fx, kept } = ctx;
    const lists: Record<string, string> = kept.state.listingLists ?? { all: fx.listIds[0] };
    await withClient(ctx.url, async (client) => {
      if (!kept.state.listingLists) await loadListingData(client, fx, lists);
      kept.state.listingLists = lists;
      kept.save();
      // Also after a migration rewrote a kept database's tables (as autovacuum would, in time).
      for (const table of ['contacts', 'list_memberships', 'suppressions']) await client.query(`VACUUM ANALYZE ${table}`);
      // A server that has been running has these in its cache; load them as it would have (when pg_prewarm exists).
      try {
        await client.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
        const { rows } = await client.query<{ relation: string }>(
          `SELECT unnest(ARRAY[tablename]) AS relation FROM (VALUES ('contacts'), ('list_memberships'), ('suppressions')) AS t(tablename)
           UNION ALL SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('contacts', 'list_memberships', 'suppressions')`,
        );
        for (const { relation } of rows) await client.query('SELECT pg_prewarm($1)', [relation]);
      } catch (error) {
        log(`listing: pg_prewarm unavailable (${(error as Error).message}); the first pages read from disk`);
      }
    });
    return { report: await measureListing(ctx, lists) };
  },
};

/** The listing's lists (100%, 10%, 3%, 1% of the existing contacts) and suppressions (2%), set-based. */
async function loadListingData(client: Client, fx: Fixtures, lists: Record<string, string>): Promise<void> {
  log('listing: adding lists, suppressions and update times (set-based), then ANALYZE');
  for (const [name, every] of [
    ['tenth', 10],
    ['hundredth', 100],
    ['thirtythird', 33],
  ] as const) {
    const { rows } = await client.query<{ id: string }>(`INSERT INTO lists (organization_id, name) VALUES ($1, $2) RETURNING id`, [
      fx.organizationId,
      `Listing ${name}`,
    ]);
    lists[name] = rows[0].id;
    await client.query(
      `INSERT INTO list_memberships (contact_id, list_id, email)
       SELECT id, $2, email FROM contacts
       WHERE organization_id = $1 AND email LIKE 'existing-%' AND split_part(substr(email, 10), '@', 1)::int % $3 = 0`,
      [fx.organizationId, lists[name], every],
    );
  }
  await client.query(
    `INSERT INTO suppressions (organization_id, email, reason)
     SELECT organization_id, email, 'bounced' FROM contacts
     WHERE organization_id = $1 AND email LIKE 'existing-%' AND split_part(substr(email, 10), '@', 1)::int % 50 = 0
     ON CONFLICT DO NOTHING`,
    [fx.organizationId],
  );
}

type Filters = { listId?: string; suppressed?: boolean; updatedSince?: string };

async function measureListing(ctx: BenchContext, lists: Record<string, string>): Promise<Record<string, unknown>> {
  const { service, stats, fx, settings } = ctx;
  const pages = settings.requests ?? DEFAULT_PAGES;
  const recent = new Date(Date.now() - DAY_MS).toISOString(); // about 1% of the contacts
  const month = new Date(Date.now() - 30 * DAY_MS).toISOString(); // about 30%
  const filters: Array<[string, Filters]> = [
    ['unfiltered', {}],
    ['listId (100% list)', { listId: lists.all }],
    ['listId (10% list)', { listId: lists.tenth }],
    ['listId (3% list)', { listId: lists.thirtythird }],
    ['listId (1% list)', { listId: lists.hundredth }],
    ['suppressed=true (2%)', { suppressed: true }],
    ['suppressed=false', { suppressed: false }],
    ['updatedSince (last day, 1%)', { updatedSince: recent }],
    ['updatedSince (last 30 days)', { updatedSince: month }],
    ['listId (10%) + suppressed=true', { listId: lists.tenth, suppressed: true }],
    ['listId (10%) + suppressed=false', { listId: lists.tenth, suppressed: false }],
    ['listId (10%) + updatedSince (last day)', { listId: lists.tenth, updatedSince: recent }],
    ['listId (100%) + updatedSince (30 days)', { listId: lists.all, updatedSince: month }],
    ['suppressed=true + updatedSince (30 days)', { suppressed: true, updatedSince: month }],
    ['suppressed=false + updatedSince (last day)', { suppressed: false, updatedSince: recent }],
    ['listId (1%) + suppressed=false + updatedSince (30 days)', { listId: lists.hundredth, suppressed: false, updatedSince: month }],
  ];
  const figures: Record<string, unknown> = {};
  for (const [name, filter] of filters) {
    if (settings.listingOnly.length > 0 && !settings.listingOnly.some((part) => name.includes(part))) continue;
    const query = new URLSearchParams({ limit: '1000' });
    if (filter.listId) query.set('listId', filter.listId);
    if (filter.suppressed !== undefined) query.set('suppressed', String(filter.suppressed));
    if (filter.updatedSince) query.set('updatedSince', filter.updatedSince);
    const cursorFilters = {
      listId: filter.listId ?? null,
      suppressed: filter.suppressed ?? null,
      updatedSince: filter.updatedSince ? new Date(filter.updatedSince) : null,
    };
    const latencies: number[] = [];
    let contacts = 0;
    let non200 = 0;
    let cpuBefore: number | null = null;
    for (let i = 0; i < pages + 5; i++) {
      if (i === 5) {
        await stats.reset();
        cpuBefore = service.cpuSeconds();
      }
      // A random position; every tenth request starts at the beginning.
      const after = `existing-${Math.floor(Math.random() * settings.existing)}@bench.example.com`;
      const withCursor = new URLSearchParams(query);
      if (i % 10 !== 0) withCursor.set('cursor', encodeCursor(after, cursorFilters));
      const started = performance.now();
      const res = await fetch(`${service.baseUrl}/api/v2/contacts?${withCursor.toString()}`, { headers: { authorization: `Bearer ${fx.key}` } });
      const body = (await res.json()) as { contacts?: unknown[] };
      const elapsed = performance.now() - started;
      if (i < 5) continue; // warm-up
      if (res.status !== 200) non200++;
      latencies.push(elapsed);
      contacts += body.contacts?.length ?? 0;
    }
    const cpuAfter = service.cpuSeconds();
    const database = await stats.read();
    const entry = {
      ...percentiles(latencies),
      meanContacts: Math.round(contacts / latencies.length),
      requests: latencies.length,
      non200,
      // CPU time of the service process per page: steadier than wall-clock on a shared machine.
      serviceCpuMsPerRequest: cpuBefore !== null && cpuAfter !== null ? round(((cpuAfter - cpuBefore) * 1000) / latencies.length, 2) : null,
      topStatements: database.top?.slice(0, 2),
    };
    figures[name] = entry;
    const top = database.top?.[0];
    log(
      `listing ${name}: p50 ${entry.p50} ms, p99 ${entry.p99} ms, ${entry.meanContacts} contacts a page, ` +
        `service CPU ${entry.serviceCpuMsPerRequest} ms a page, top statement ${top ? `${round(top.meanMs, 2)} ms × ${top.calls}` : 'n/a'}`,
    );
  }
  return { pageSize: 1000, requestsPerScenario: pages, scenarios: figures };
}
