import { withClient } from '../harness/database';
import { count5xx, log, percentiles, round } from '../harness/figures';
import type { Fixtures } from '../harness/fixtures';
import type { Scenario } from '../harness/scenario';

/** Erased addresses unless BENCH_REQUESTS says otherwise. */
const DEFAULT_REQUESTS = 300;

/**
 * With `--existing N` only: POST /contacts/{email}/erase of distinct existing addresses, one at a
 * time, after N/10 stored answers (each holding two existing addresses) and a suppression of every
 * tenth address were loaded: p50/p95/p99 of erasing one address with stored answers to search.
 */
export const erase: Scenario = {
  name: 'erase',
  phases: ['existing'],
  run: async (ctx) => {
    const { service, stats, fx, settings, kept } = ctx;
    const requests = settings.requests ?? DEFAULT_REQUESTS;
    const storedAnswers = Math.max(1, Math.floor(settings.existing / 10));
    if (kept.state.storedAnswers === undefined) {
      log(`erase: loading ${storedAnswers} stored answers (set-based)`);
      await loadStoredAnswers(ctx.url, fx, storedAnswers, settings.existing);
      kept.state.storedAnswers = storedAnswers;
    }
    // A kept database: each run erases addresses no earlier run erased.
    const run = kept.state.eraseRuns ?? 0;
    kept.state.eraseRuns = run + 1;
    kept.save();
    log(`erase: ${requests} requests, 1 connection`);
    await stats.reset();
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const cpuBefore = service.cpuSeconds();
    const started = Date.now();
    for (let g = 1; g <= requests; g++) {
      // Spread over the table, each erased once (`run`: a kept database's earlier runs).
      const email = `existing-${g * 7 + run}@bench.example.com`;
      const t0 = performance.now();
      const res = await fetch(`${service.baseUrl}/api/v2/contacts/${encodeURIComponent(email)}/erase`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fx.adminKey}` },
      });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
    const cpuAfter = service.cpuSeconds();
    const counted = await stats.read();
    return {
      listed: [
        {
          name: 'erase',
          unit: 'requests',
          perSecond: round((requests * 1000) / (Date.now() - started)),
          requests,
          ...percentiles(latencies),
          statementsPerRequest: counted.statements === null ? null : round(counted.statements / requests, 2),
          transactionsPerRequest: round(counted.transactions / requests, 2),
          topStatements: counted.top,
          peakRssMiB: null,
          serviceCpuMsPerRequest: cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1000) / requests, 3),
          status5xx: count5xx(statuses),
          statuses,
        },
      ],
    };
  },
};

/**
 * `count` stored answers (GET /requests) of the organization, set-based: each holds two existing
 * addresses (existing-g and existing-g+1, as a batch answer would); every tenth address is also
 * suppressed (so erase keeps a hashed suppression too); then ANALYZE (autovacuum may be off).
 */
async function loadStoredAnswers(url: string, fx: Fixtures, count: number, existing: number): Promise<void> {
  await withClient(url, async (client) => {
    await client.query(
      `INSERT INTO stored_responses (request_id, organization_id, status, body, emails, created_at)
       SELECT gen_random_uuid()::text, $1, 200,
              json_build_object('request_id', 'bench', 'results', json_build_array(
                json_build_object('index', 0, 'email', 'existing-' || g || '@bench.example.com', 'status', 'unchanged'),
                json_build_object('index', 1, 'email', 'existing-' || (g % $3::int) + 1 || '@bench.example.com', 'status', 'unchanged'))),
              ARRAY['existing-' || g || '@bench.example.com', 'existing-' || (g % $3::int) + 1 || '@bench.example.com'], now()
       FROM generate_series(1, $2::int) AS g`,
      [fx.organizationId, count, existing],
    );
    await client.query(
      `INSERT INTO suppressions (organization_id, email, reason)
       SELECT $1, 'existing-' || g || '@bench.example.com', 'bounced' FROM generate_series(1, $2::int, 10) AS g`,
      [fx.organizationId, Math.min(existing, count)],
    );
    await client.query('ANALYZE');
  });
}
