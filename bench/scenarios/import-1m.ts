import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { request } from 'undici';
import { log, percentiles, round } from '../harness/figures';
import { contactRow, freshEmail, makeFixtures, type Fixtures } from '../harness/fixtures';
import type { Scenario } from '../harness/scenario';
import type { Service } from '../harness/service';

/** Rows generated per chunk of the upload (and of the raw baseline's COPY). */
const ROWS_PER_CHUNK = 1000;
/** The other organization's single creates: one every this many ms, sent on schedule (not waiting for answers). */
const PROBE_INTERVAL_MS = 50;
/** Polls of GET /imports/{id}. */
const POLL_MS = 250;
/** The longest an import may take before the scenario gives up. */
const IMPORT_TIMEOUT_MS = 60 * 60 * 1000;

/** `rows` NDJSON lines of new contacts (2 lists, 4 fields, as every scenario writes), in chunks. */
function* ndjsonRows(rows: number, fx: Fixtures): Generator<Buffer> {
  for (let done = 0; done < rows; done += ROWS_PER_CHUNK) {
    const lines: string[] = [];
    for (let i = done; i < Math.min(rows, done + ROWS_PER_CHUNK); i++) lines.push(JSON.stringify(contactRow(freshEmail('im'), fx)));
    yield Buffer.from(`${lines.join('\n')}\n`);
  }
}

/** The same rows in COPY's text format: email, first_name, city, plan, seats. */
function* copyRows(rows: number): Generator<Buffer> {
  for (let done = 0; done < rows; done += ROWS_PER_CHUNK) {
    const lines: string[] = [];
    for (let i = done; i < Math.min(rows, done + ROWS_PER_CHUNK); i++) lines.push(`${freshEmail('ri')}\tAda\tOslo\tpro\t3\n`);
    yield Buffer.from(lines.join(''));
  }
}

/**
 * The raw baseline of an import: the same rows `COPY`'d into a table (logged, as the service stores
 * an import's rows durably) and merged set-based into contacts and their memberships with `pg`, in
 * one transaction. Timed from the first byte of the COPY to the COMMIT.
 */
export async function rawImport(url: string, fx: Fixtures, rows: number): Promise<{ seconds: number; contactsPerSecond: number; created: number }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('DROP TABLE IF EXISTS bench_raw_import_rows');
    const started = process.hrtime.bigint();
    await client.query('BEGIN');
    await client.query('CREATE TABLE bench_raw_import_rows (email text NOT NULL, first_name text, city text, plan text, seats int)');
    await pipeline(Readable.from(copyRows(rows)), client.query(copyFrom('COPY bench_raw_import_rows FROM STDIN')));
    const { rows: merged } = await client.query<{ created: number }>(
      `WITH inserted AS (
         INSERT INTO contacts (id, organization_id, email, first_name, city, custom_fields, created_at, updated_at)
         SELECT gen_random_uuid()::text, $1, r.email, r.first_name, r.city, jsonb_build_object('plan', r.plan, 'seats', r.seats), now(), now()
         FROM bench_raw_import_rows r
         ON CONFLICT (organization_id, email) DO NOTHING
         RETURNING id, email
       ), memberships AS (
         INSERT INTO list_memberships (contact_id, list_id, email)
         SELECT i.id, l, i.email FROM inserted i CROSS JOIN unnest($2::text[]) AS l
       )
       SELECT count(*)::int AS created FROM inserted`,
      [fx.organizationId, fx.listIds],
    );
    await client.query('COMMIT');
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await client.query('DROP TABLE bench_raw_import_rows');
    return { seconds: round(seconds, 2), contactsPerSecond: round(merged[0].created / seconds), created: merged[0].created };
  } finally {
    await client.end();
  }
}

/** Another organization's single creates, paced, while `until` runs: latencies and statuses. */
async function probeSingles<T>(service: Service, fx: Fixtures, until: Promise<T>): Promise<{ result: T; latencies: number[]; statuses: Record<string, number> }> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const sent: Promise<void>[] = [];
  const send = () => {
    const started = process.hrtime.bigint();
    sent.push(
      fetch(`${service.baseUrl}/api/v2/contacts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fx.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(contactRow(freshEmail('ip'), fx)),
      }).then(
        async (res) => {
          await res.arrayBuffer();
          latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        },
        () => {
          statuses.network = (statuses.network ?? 0) + 1;
        },
      ),
    );
  };
  const timer = setInterval(send, PROBE_INTERVAL_MS);
  try {
    const result = await until;
    return { result, latencies, statuses };
  } finally {
    clearInterval(timer);
    await Promise.all(sent);
  }
}

interface ImportView {
  id: string;
  status: string;
  rows: number;
  processed: number;
  counts: Record<string, number>;
  codes: Record<string, number>;
  error: unknown;
}

/** POST /api/v2/imports of the generated rows (streamed, gzip optional), then GET /imports/{id} until it ends. */
async function importRows(service: Service, fx: Fixtures, rows: number, gzip: boolean, onRss: () => void) {
  const started = process.hrtime.bigint();
  const source = Readable.from(ndjsonRows(rows, fx));
  const body = gzip ? source.pipe(createGzip({ level: 1 })) : source;
  const res = await request(`${service.baseUrl}/api/v2/imports`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${fx.key}`,
      'content-type': 'application/x-ndjson',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    },
    body,
  });
  const answer = (await res.body.json()) as { import?: ImportView; error?: unknown };
  const accepted = Number(process.hrtime.bigint() - started) / 1e9;
  if (res.statusCode !== 202 || !answer.import) throw new Error(`POST /api/v2/imports answered ${res.statusCode}: ${JSON.stringify(answer)}`);
  log(`import1M: ${answer.import.id} accepted after ${round(accepted, 2)} s`);
  const deadline = Date.now() + IMPORT_TIMEOUT_MS;
  let view = answer.import;
  while (!['completed', 'failed', 'cancelled'].includes(view.status)) {
    if (Date.now() > deadline) throw new Error(`import ${view.id} not finished after ${IMPORT_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    onRss();
    const polled = await fetch(`${service.baseUrl}/api/v2/imports/${view.id}`, { headers: { authorization: `Bearer ${fx.key}` } });
    const polledBody = (await polled.json()) as { import?: ImportView };
    if (polled.status !== 200 || !polledBody.import) throw new Error(`GET /api/v2/imports/${view.id} answered ${polled.status}`);
    view = polledBody.import;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (view.status !== 'completed') throw new Error(`import ${view.id} ended ${view.status}: ${JSON.stringify(view.error)}`);
  return { view, seconds, acceptedSeconds: accepted };
}

/**
 * An import of BENCH_IMPORT_ROWS new contacts (NDJSON, 2 lists, 4 fields; gzip with
 * BENCH_IMPORT_GZIP=1), streamed to POST /api/v2/imports and polled until `completed`: contacts/s
 * from the first byte of the upload to `completed`, against the raw baseline of the same rows in
 * the same run (`rawImport`, run first so the service's import meets the larger tables). Meanwhile
 * another organization creates one contact every 50 ms: its p99 during the import against its p99
 * idle (for BENCH_SECONDS before). The service's RSS is sampled every 200 ms during the import.
 */
export const import1M: Scenario = {
  name: 'import1M',
  phases: ['empty'],
  run: async (ctx) => {
    const { service, settings, fx } = ctx;
    const rows = settings.importRows;
    log(`import1M: raw baseline, ${rows} rows COPY'd and merged`);
    const raw = await rawImport(ctx.url, fx, rows);
    log(`import1M: raw baseline ${raw.contactsPerSecond} contacts/s (${raw.seconds} s)`);

    const neighbour = await makeFixtures(ctx.url, 'Import neighbour');
    await probeSingles(service, neighbour, new Promise((resolve) => setTimeout(resolve, settings.warmupSeconds * 1000)));
    log(`import1M: the other organization's single creates idle, ${settings.seconds} s`);
    const idle = await probeSingles(service, neighbour, new Promise((resolve) => setTimeout(resolve, settings.seconds * 1000)));

    log(`import1M: importing ${rows} rows${settings.importGzip ? ' (gzip)' : ''}`);
    await ctx.stats.reset();
    let peakRss = 0;
    const sampleRss = () => (peakRss = Math.max(peakRss, service.sampleRss() ?? 0));
    const sampler = setInterval(sampleRss, 200);
    const cpuBefore = service.cpuSeconds();
    let during: Awaited<ReturnType<typeof probeSingles<Awaited<ReturnType<typeof importRows>>>>>;
    try {
      during = await probeSingles(service, neighbour, importRows(service, fx, rows, settings.importGzip, sampleRss));
    } finally {
      clearInterval(sampler);
    }
    const cpuAfter = service.cpuSeconds();
    const counted = await ctx.stats.read();
    const { view, seconds, acceptedSeconds } = during.result;
    const contactsPerSecond = round(rows / seconds);
    const idleP = percentiles(idle.latencies);
    const duringP = percentiles(during.latencies);
    const fivexx = (statuses: Record<string, number>) =>
      Object.entries(statuses)
        .filter(([status]) => status.startsWith('5'))
        .reduce((sum, [, n]) => sum + n, 0);
    log(`import1M: ${contactsPerSecond} contacts/s (${round(seconds, 2)} s), ${round(contactsPerSecond / raw.contactsPerSecond, 3)} of raw`);
    return {
      report: {
        rows,
        gzip: settings.importGzip,
        seconds: round(seconds, 2),
        acceptedSeconds: round(acceptedSeconds, 2),
        contactsPerSecond,
        counts: view.counts,
        codes: view.codes,
        raw,
        importRatioToRaw: round(contactsPerSecond / raw.contactsPerSecond, 3),
        // Filled in by bench/main.ts when batchCreate ran in the same run.
        importVsBatchCreate: null as number | null,
        peakRssMiB: peakRss ? round(peakRss / 1024, 1) : null,
        serviceCpuMsPerContact: cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1000) / rows, 4),
        statementsPerContact: counted.statements === null ? null : round(counted.statements / rows, 3),
        topStatements: counted.top,
        otherOrganization: {
          idle: { requests: idle.latencies.length, ...idleP, statuses: idle.statuses },
          duringImport: { requests: during.latencies.length, ...duringP, statuses: during.statuses },
          p99Ratio: idleP.p99 > 0 ? round(duringP.p99 / idleP.p99, 2) : null,
        },
      },
      status5xx: fivexx(idle.statuses) + fivexx(during.statuses),
    };
  },
};
