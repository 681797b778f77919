import http from 'node:http';
import { withClient } from '../harness/database';
import { log, round } from '../harness/figures';
import { makeFixtures } from '../harness/fixtures';
import type { Scenario } from '../harness/scenario';

/** What the export must reach (contract section 17, issue 32): rows a second, and the service's memory. */
const GOAL_ROWS_PER_SECOND = 50_000;
const GOAL_PEAK_RSS_MIB = 300;

/**
 * GET /api/v2/contacts/export of an organization of its own holding BENCH_EXPORT_CONTACTS contacts
 * (default 1,000,000), seeded set-based in SQL (generate_series: 2 lists each, 2 standard and 2
 * custom fields), then read over HTTP as fast as the client takes it, once as NDJSON and once as
 * CSV. Its entry: rows/s and MB/s of each, the service's peak RSS while it streams (VmRSS sampled
 * every 200 ms) and its CPU a row, next to the goals (≥ 50,000 rows/s, ≤ 300 MiB).
 */
export const export1M: Scenario = {
  name: 'export1M',
  phases: ['empty'],
  run: async (ctx) => {
    const contacts = ctx.settings.exportContacts;
    const fx = await makeFixtures(ctx.url, 'Bench export');
    log(`export1M: seeding ${contacts} contacts (set-based), then VACUUM ANALYZE`);
    await withClient(ctx.url, async (client) => {
      await client.query(
        `INSERT INTO contacts (organization_id, email, first_name, city, custom_fields)
         SELECT $1, 'export-' || lpad(g::text, 7, '0') || '@bench.example.com', 'Ada ' || g, 'Oslo',
                jsonb_build_object('plan', CASE WHEN g % 2 = 0 THEN 'pro' ELSE 'free' END, 'seats', g % 50)
         FROM generate_series(1, $2::int) AS g`,
        [fx.organizationId, contacts],
      );
      for (const listId of fx.listIds) {
        await client.query(`INSERT INTO list_memberships (contact_id, list_id, email) SELECT id, $2, email FROM contacts WHERE organization_id = $1`, [
          fx.organizationId,
          listId,
        ]);
      }
      for (const table of ['contacts', 'list_memberships', 'suppressions']) await client.query(`VACUUM ANALYZE ${table}`);
    });
    const report: Record<string, unknown> = { contacts, goals: { rowsPerSecond: GOAL_ROWS_PER_SECOND, peakRssMiB: GOAL_PEAK_RSS_MIB } };
    for (const format of ['ndjson', 'csv'] as const) {
      let peakRss = 0;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, ctx.service.sampleRss() ?? 0)), 200);
      const cpuBefore = ctx.service.cpuSeconds();
      const started = process.hrtime.bigint();
      const read = await readExport(`${ctx.service.baseUrl}/api/v2/contacts/export?format=${format}`, fx.key);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const cpuAfter = ctx.service.cpuSeconds();
      clearInterval(sampler);
      const rows = read.lines - (format === 'csv' ? 1 : 0);
      const entry = {
        status: read.status,
        complete: read.complete,
        rows,
        seconds: round(seconds, 2),
        rowsPerSecond: Math.round(rows / seconds),
        mbPerSecond: round(read.bytes / 1e6 / seconds, 1),
        peakRssMiB: peakRss ? round(peakRss / 1024, 1) : null,
        serviceCpuUsPerRow: cpuBefore !== null && cpuAfter !== null && rows > 0 ? round(((cpuAfter - cpuBefore) * 1e6) / rows, 2) : null,
      };
      log(`export1M ${format}: ${entry.rows} rows in ${entry.seconds} s, ${entry.rowsPerSecond} rows/s, peak RSS ${entry.peakRssMiB} MiB`);
      report[format] = entry;
    }
    await withClient(ctx.url, async (client) => {
      await client.query(`DELETE FROM contacts WHERE organization_id = $1`, [fx.organizationId]);
    });
    return { report };
  },
};

/** Reads the whole body, counting bytes and newlines (nothing is kept). */
function readExport(url: string, key: string): Promise<{ status: number; bytes: number; lines: number; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Authorization: `Bearer ${key}` } }, (res) => {
      let bytes = 0;
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, lines, complete: res.complete }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, bytes, lines, complete: false }));
    });
    req.on('error', reject);
  });
}
