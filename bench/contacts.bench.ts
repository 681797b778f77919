/**
 * `npm run bench [-- --existing 1000000]`: the service as production runs it (`node dist/main.js`,
 * built first) on a fresh database, loaded over keep-alive HTTP by autocannon from this process,
 * against raw `pg` baselines in the same run. The LAST line printed is one JSON object.
 *
 * Database: a fresh database on DATABASE_URL's server, else an embedded PostgreSQL started here
 * with pg_stat_statements preloaded (statements per request). Fixtures are made with the admin
 * code (src/admin). Environment: BENCH_SECONDS (10) and BENCH_WARMUP_SECONDS (2) per scenario,
 * BENCH_BATCH_CONNECTIONS (4), BENCH_SINGLE_CONNECTIONS (16), BENCH_SKIP_BUILD=1, BENCH_NODE_ARGS (service's
 * node flags, e.g. --cpu-prof), BENCH_ONLY (comma-separated scenario names, e.g. singleCreate,rawSingle),
 * BENCH_SWEEP_CONNECTIONS (1,2,4,8,16,32) and BENCH_SWEEP_SECONDS (5) for the batchCreate saturation sweep,
 * BENCH_FEED_EVENTS (50000) and BENCH_FEED_REQUESTS (1000) for the events feed scenario `feed`; BENCH_FEED_WRITERS (0):
 * that many connections making batch creates while the pages are read (the horizon then waits for commits in flight);
 * BENCH_FEED_TRACE=<file>: each timed page's start (epoch ms) and time, one JSON line a page.
 * BENCH_LISTING_REQUESTS (200) pages per listing scenario; BENCH_LISTING_ONLY (comma-separated parts of
 * listing scenario names, e.g. `3% list,suppressed=true`) runs only the listing scenarios whose name holds one.
 * BENCH_DATA_DIR=<folder> (embedded server only) keeps the server's data folder and the bench database
 * there, with what was loaded (state.json): a later run with the same folder and the same --existing
 * reuses them instead of loading again (migrations are applied as usual; erase takes fresh addresses).
 * BENCH_TRACING=1 measures tracing's cost instead (see tracingComparison): a second service with
 * OpenTelemetry on, exporting to an OTLP sink in this process, alternated with the plain one.
 * Exits 1 if any request was answered 5xx.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { PrismaPg } from '@prisma/adapter-pg';
import { Client, Pool } from 'pg';
import { freePort } from './free-port';
import { startOtlpSink } from './otlp-sink';
import { parseAdminCommand } from '../src/admin/admin-arguments';
import { executeAdminCommand } from '../src/admin/admin.commands';
import { databaseUrlOn, ensureDatabase, startEmbeddedPostgres, type EmbeddedDatabase } from '../src/database/embedded-postgres';
import { applyMigrations } from '../src/database/migrations';
import { PROJECT_ROOT } from '../src/database/project-root';
import { PrismaClient } from '../src/generated/prisma/client';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const BATCH_CONNECTIONS = Number(process.env.BENCH_BATCH_CONNECTIONS ?? 4);
const SINGLE_CONNECTIONS = Number(process.env.BENCH_SINGLE_CONNECTIONS ?? 16);
const BATCH = 50;
/** The erase scenario (with --existing): stored answers loaded, addresses erased one after the other. */
const STORED_ANSWERS = Number(process.env.BENCH_STORED_ANSWERS ?? 100_000);
const ERASE_REQUESTS = Number(process.env.BENCH_ERASE_REQUESTS ?? 300);
const existingArg = process.argv.indexOf('--existing');
const EXISTING = existingArg > 0 ? Number(process.argv[existingArg + 1]) : 0;

/** BENCH_DATA_DIR: a kept embedded server and database, reused with what was loaded into it. */
const KEEP_DIR = process.env.BENCH_DATA_DIR ? path.resolve(process.env.BENCH_DATA_DIR) : null;
interface KeptState {
  fixtures?: Fixtures;
  existing?: number;
  listingLists?: Record<string, string>;
  storedAnswers?: number;
  eraseRuns?: number;
}
const keptState: KeptState = KEEP_DIR && existsSync(path.join(KEEP_DIR, 'state.json')) ? (JSON.parse(readFileSync(path.join(KEEP_DIR, 'state.json'), 'utf8')) as KeptState) : {};
const saveKeptState = () => {
  if (KEEP_DIR) writeFileSync(path.join(KEEP_DIR, 'state.json'), JSON.stringify(keptState, null, 2));
};

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

interface Scenario {
  name: string;
  unit: 'contacts' | 'requests';
  perSecond: number;
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  statementsPerRequest: number | null;
  transactionsPerRequest: number;
  /** The statements that took the most database time (pg_stat_statements): text, calls, mean ms. */
  topStatements?: Array<{ query: string; calls: number; meanMs: number; maxMs?: number }>;
  peakRssMiB: number | null;
  /** The service process's CPU time (user + system, /proc) per request: steadier than rates on a shared machine. */
  serviceCpuMsPerRequest?: number | null;
  status5xx: number;
  statuses: Record<string, number>;
}

interface Fixtures {
  organizationId: string;
  key: string;
  /** A key with the `admin` scope (erase and webhooks need it); `key` has the default scope, as a caller's would. */
  adminKey: string;
  listIds: [string, string];
}

let sequence = 0;
const freshEmail = (tag: string) => `${tag}-${process.pid}-${++sequence}@bench.example.com`;

/** The row every scenario writes: 2 lists, 4 fields (2 standard, 2 custom). */
function row(email: string, fx: Fixtures, city = 'Oslo', overwrite = false): Record<string, unknown> {
  return { email, listIds: fx.listIds, fields: { firstName: 'Ada', city, plan: 'pro', seats: 3 }, overwrite };
}

async function main(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    log('building (npm run build)');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  }
  const db = await freshDatabase();
  let stats: StatementStats, fx: Fixtures, postgres: string, service: Service;
  try {
    stats = await StatementStats.open(db.url);
    fx = keptState.fixtures?.adminKey ? keptState.fixtures : await makeFixtures(db.url, keptState.fixtures);
    keptState.fixtures = fx;
    saveKeptState();
    postgres = await serverVersion(db.url);
    // Webhook scenarios deliver to a receiver in this process, on 127.0.0.1.
    service = await startService(db.url, { WEBHOOK_ALLOW_INSECURE: 'true' });
  } catch (error) {
    await db.stop();
    throw error;
  }
  const result: Record<string, unknown> = {
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, postgres },
    settings: { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, batchConnections: BATCH_CONNECTIONS, singleConnections: SINGLE_CONNECTIONS },
  };
  let failed5xx: number;
  if (process.env.BENCH_TRACING === '1') {
    try {
      const comparison = await tracingComparison(db.url, stats, fx, service);
      result.tracing = comparison.report;
      failed5xx = comparison.status5xx;
      result.responses5xx = failed5xx;
    } finally {
      await service.stop();
      await stats.close();
      await db.stop();
    }
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exitCode = failed5xx > 0 ? 1 : 0;
    return;
  }
  try {
    // BENCH_ONLY=singleCreate,rawSingle runs only those scenarios (profiling one path).
    const only = new Set((process.env.BENCH_ONLY ?? '').split(',').filter(Boolean));
    const wanted = (name: string) => only.size === 0 || only.has(name);
    const scenarios: Scenario[] = [];
    // Cold start: the first 5 s of single creates right after ready, before any other load.
    if (wanted('coldFirst5s')) scenarios.push(await runHttp(service, stats, fx, 'coldFirst5s', SINGLE_CONNECTIONS, 5, 0, singleCreate(fx)));
    if (wanted('batchCreate')) {
      scenarios.push(await runHttp(service, stats, fx, 'batchCreate', BATCH_CONNECTIONS, SECONDS, WARMUP_SECONDS, batchCreate(fx)));
    }
    if (wanted('batchCreateWithWebhook')) {
      // The same scenario with one webhook delivering every event to a local receiver.
      const hook = await withWebhook(service, fx, async () =>
        scenarios.push(await runHttp(service, stats, fx, 'batchCreateWithWebhook', BATCH_CONNECTIONS, SECONDS, WARMUP_SECONDS, batchCreate(fx))),
      );
      result.batchCreateWithWebhook = hook;
    }
    if (wanted('webhookLatency')) result.webhookLatency = await webhookLatency(service, stats, fx, db.url);
    const overwriteEmails = await seedOverwriteContacts(service, fx);
    if (wanted('batchOverwrite')) {
      scenarios.push(
        await runHttp(service, stats, fx, 'batchOverwrite', BATCH_CONNECTIONS, SECONDS, WARMUP_SECONDS, batchOverwrite(fx, overwriteEmails)),
      );
    }
    if (wanted('batchMixed')) {
      scenarios.push(await runHttp(service, stats, fx, 'batchMixed', BATCH_CONNECTIONS, SECONDS, WARMUP_SECONDS, batchMixed(fx)));
    }
    if (wanted('singleCreate')) {
      scenarios.push(await runHttp(service, stats, fx, 'singleCreate', SINGLE_CONNECTIONS, SECONDS, WARMUP_SECONDS, singleCreate(fx)));
    }
    if (wanted('singleUnchanged')) {
      scenarios.push(
        await runHttp(service, stats, fx, 'singleUnchanged', SINGLE_CONNECTIONS, SECONDS, WARMUP_SECONDS, singleUnchanged(fx, overwriteEmails)),
      );
    }
    if (wanted('batchSweep')) result.batchSweep = await runSweep(service, stats, fx, scenarios);
    // GET /api/v2/events, pages of 1,000 (docs/performance.md, "Events feed").
    if (wanted('feed')) result.feed = await runFeed(service, stats, db.url, fx);
    if (wanted('rawBatch')) scenarios.push(await runRaw(db.url, stats, fx, 'rawBatch', BATCH_CONNECTIONS, rawBatch));
    if (wanted('rawSingle')) scenarios.push(await runRaw(db.url, stats, fx, 'rawSingle', SINGLE_CONNECTIONS, rawSingle));
    const by = (name: string) => scenarios.find((s) => s.name === name);
    const ratio = (a: string, b: string) => {
      const x = by(a);
      const y = by(b);
      return x && y ? round(x.perSecond / y.perSecond, 3) : null;
    };

    const cold = by('coldFirst5s');
    const steady = by('singleCreate');
    if (cold && steady) {
      result.coldStart = {
        secondsToReady: service.secondsToReady,
        first5s: { rps: cold.perSecond, p99: cold.p99 },
        steady: { rps: steady.perSecond, p99: steady.p99 },
        rateRatio: round(cold.perSecond / steady.perSecond, 2),
        p99Ratio: round(cold.p99 / steady.p99, 2),
      };
    }
    result.scenarios = Object.fromEntries(scenarios.filter((s) => s.name !== 'coldFirst5s' && !s.name.startsWith('batchSweep-')).map((s) => [s.name, s]));
    result.ratioToRaw = ratio('batchCreate', 'rawBatch');
    result.webhookRatio = ratio('batchCreateWithWebhook', 'batchCreate');
    result.singleRatioToRaw = ratio('singleCreate', 'rawSingle');

    if (EXISTING > 0) {
      if (keptState.existing === EXISTING) {
        log(`reusing the ${EXISTING} existing contacts of ${KEEP_DIR}`);
      } else {
        if (keptState.existing !== undefined) throw new Error(`${KEEP_DIR} holds ${keptState.existing} existing contacts, not ${EXISTING}`);
        log(`loading ${EXISTING} existing contacts (set-based) and running the batch scenarios again`);
        await loadExisting(db.url, fx, EXISTING);
        keptState.existing = EXISTING;
        saveKeptState();
      }
      const scaled: Scenario[] = [];
      // BENCH_ONLY applies here too (e.g. BENCH_ONLY=erase runs only the erase scenario at scale).
      if (wanted('batchCreate')) scaled.push(await runHttp(service, stats, fx, 'batchCreate', BATCH_CONNECTIONS, SECONDS, WARMUP_SECONDS, batchCreate(fx)));
      if (wanted('batchOverwrite')) {
        scaled.push(await runHttp(service, stats, fx, 'batchOverwrite', BATCH_CONNECTIONS, SECONDS, WARMUP_SECONDS, batchOverwrite(fx, overwriteEmails)));
      }
      if (wanted('batchMixed')) scaled.push(await runHttp(service, stats, fx, 'batchMixed', BATCH_CONNECTIONS, SECONDS, WARMUP_SECONDS, batchMixed(fx)));
      if (wanted('erase')) {
        log(`loading ${STORED_ANSWERS} stored answers (set-based) and erasing ${ERASE_REQUESTS} addresses one by one`);
        if (keptState.storedAnswers === undefined) {
          await loadStoredAnswers(db.url, fx, STORED_ANSWERS, EXISTING);
          keptState.storedAnswers = STORED_ANSWERS;
        }
        // A kept database: each run erases addresses no earlier run erased.
        const run = keptState.eraseRuns ?? 0;
        keptState.eraseRuns = run + 1;
        saveKeptState();
        scaled.push(await runErase(service, stats, fx, ERASE_REQUESTS, run));
      }
      const scaledCreate = scaled.find((s) => s.name === 'batchCreate');
      result.existing = {
        contacts: EXISTING,
        storedAnswers: wanted('erase') ? STORED_ANSWERS : 0,
        scenarios: Object.fromEntries(scaled.map((s) => [s.name, s])),
        batchCreateRatioToEmpty: by('batchCreate') && scaledCreate ? round(scaledCreate.perSecond / (by('batchCreate') as Scenario).perSecond, 3) : null,
      };
      scenarios.push(...scaled);
      // GET /api/v2/contacts, pages of 1,000 (docs/performance.md, "Listing contacts").
      if (wanted('listing')) result.listing = await runListing(service, stats, db.url, fx);
    }
    result.peakRssMiB = service.peakRssMiB();
    failed5xx = scenarios.reduce((sum, s) => sum + s.status5xx, 0);
    result.responses5xx = failed5xx;
  } finally {
    await service.stop();
    await stats.close();
    await db.stop();
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = failed5xx > 0 ? 1 : 0;
}

// ---------------------------------------------------------------- HTTP scenarios (autocannon)

type Body = () => { path: string; body: Record<string, unknown>; expect: number; contacts: number };

function batchCreate(fx: Fixtures): Body {
  return () => ({
    path: '/api/v2/contacts/batch',
    body: { contacts: Array.from({ length: BATCH }, () => row(freshEmail('bc'), fx)) },
    expect: 200,
    contacts: BATCH,
  });
}

/** 50 existing contacts, overwrite: true; the first half changes (a new city each time), the second half sends what is stored. */
function batchOverwrite(fx: Fixtures, emails: { changing: string[]; stable: string[] }): Body {
  let turn = 0;
  return () => {
    const k = turn++ % (emails.changing.length / (BATCH / 2));
    const changing = emails.changing.slice(k * (BATCH / 2), (k + 1) * (BATCH / 2));
    const stable = emails.stable.slice(k * (BATCH / 2), (k + 1) * (BATCH / 2));
    return {
      path: '/api/v2/contacts/batch',
      body: {
        contacts: [...changing.map((email) => row(email, fx, `City ${++sequence}`, true)), ...stable.map((email) => row(email, fx, 'Oslo', true))],
      },
      expect: 200,
      contacts: BATCH,
    };
  };
}

/** Like batchCreate with 10% of the rows failing per-contact rules (an unknown list, a wrong type). */
function batchMixed(fx: Fixtures): Body {
  return () => ({
    path: '/api/v2/contacts/batch',
    body: {
      contacts: Array.from({ length: BATCH }, (_, i) => {
        const contact = row(freshEmail('bm'), fx);
        if (i % 20 === 3) contact.listIds = [randomUUID()];
        if (i % 20 === 13) contact.fields = { seats: 'many' };
        return contact;
      }),
    },
    expect: 200,
    contacts: BATCH,
  });
}

function singleCreate(fx: Fixtures): Body {
  return () => ({ path: '/api/v2/contacts', body: row(freshEmail('sc'), fx), expect: 201, contacts: 1 });
}

function singleUnchanged(fx: Fixtures, emails: { stable: string[] }): Body {
  let turn = 0;
  return () => ({ path: '/api/v2/contacts', body: row(emails.stable[turn++ % emails.stable.length], fx, 'Oslo', true), expect: 200, contacts: 1 });
}

interface Service {
  port: number;
  secondsToReady: number;
  peakRssMiB(): number | null;
  sampleRss(): number | null;
  /** CPU seconds (user + system) the service has used so far, from /proc; null elsewhere. */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

async function runHttp(
  service: Service,
  stats: StatementStats,
  fx: Fixtures,
  name: string,
  connections: number,
  seconds: number,
  warmupSeconds: number,
  next: Body,
): Promise<Scenario> {
  if (warmupSeconds > 0) await cannon(service, fx, connections, warmupSeconds, next);
  log(`${name}: ${seconds} s at ${connections} connections`);
  await stats.reset();
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, service.sampleRss() ?? 0)), 200);
  const cpuBefore = service.cpuSeconds();
  const run = await cannon(service, fx, connections, seconds, next);
  const cpuAfter = service.cpuSeconds();
  clearInterval(sampler);
  const counted = await stats.read();
  const requests = run.latencies.length;
  const unit = run.contactsPerRequest > 1 ? 'contacts' : 'requests';
  return {
    name,
    unit,
    perSecond: round((requests * run.contactsPerRequest) / run.seconds),
    requests,
    ...percentiles(run.latencies),
    statementsPerRequest: counted.statements === null ? null : round(counted.statements / requests, 2),
    transactionsPerRequest: round(counted.transactions / requests, 2),
    topStatements: counted.top,
    peakRssMiB: peakRss ? round(peakRss / 1024, 1) : null,
    serviceCpuMsPerRequest: cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1000) / requests, 3),
    status5xx: Object.entries(run.statuses)
      .filter(([status]) => status.startsWith('5'))
      .reduce((sum, [, n]) => sum + n, 0),
    statuses: run.statuses,
  };
}

async function cannon(service: Service, fx: Fixtures, connections: number, seconds: number, next: Body) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let contactsPerRequest = 1;
  const started = Date.now();
  const options: autocannon.Options = {
    url: `http://127.0.0.1:${service.port}`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${fx.key}`, 'content-type': 'application/json' },
        setupRequest: (req) => {
          const made = next();
          contactsPerRequest = made.contacts;
          return { ...req, path: made.path, body: JSON.stringify(made.body) };
        },
      },
    ],
  };
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(options, (error) => (error ? reject(error as Error) : resolve()));
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      latencies.push(responseTime);
    });
  });
  return { latencies, statuses, contactsPerRequest, seconds: (Date.now() - started) / 1000 };
}

const SWEEP_CONNECTIONS = (process.env.BENCH_SWEEP_CONNECTIONS ?? '1,2,4,8,16,32').split(',').map(Number);
const SWEEP_SECONDS = Number(process.env.BENCH_SWEEP_SECONDS ?? 5);

/**
 * batchCreate at rising connection counts (closed loop: each connection sends its next batch when
 * the last one is answered). Saturation = the fewest connections reaching 90% of the peak rate;
 * "holds" = the rate at the most connections is still ≥ 80% of the peak (no collapse).
 * Each level's scenario is pushed into `scenarios` (so its 5xx count), named batchSweep-cN.
 */
async function runSweep(service: Service, stats: StatementStats, fx: Fixtures, scenarios: Scenario[]) {
  const points: Array<{ connections: number; contactsPerSecond: number; p50: number; p99: number; status5xx: number }> = [];
  for (const connections of SWEEP_CONNECTIONS) {
    const point = await runHttp(service, stats, fx, `batchSweep-c${connections}`, connections, SWEEP_SECONDS, 1, batchCreate(fx));
    scenarios.push(point);
    points.push({ connections, contactsPerSecond: point.perSecond, p50: point.p50, p99: point.p99, status5xx: point.status5xx });
  }
  const peak = Math.max(...points.map((p) => p.contactsPerSecond));
  const saturating = points.find((p) => p.contactsPerSecond >= 0.9 * peak) as (typeof points)[number];
  // Half the saturating load: the level with half its connections (or the nearest below).
  const half = [...points].reverse().find((p) => p.connections <= Math.max(1, saturating.connections / 2)) ?? points[0];
  const last = points[points.length - 1];
  return {
    seconds: SWEEP_SECONDS,
    points,
    peakContactsPerSecond: peak,
    saturatingConnections: saturating.connections,
    halfLoad: { connections: half.connections, contactsPerSecond: half.contactsPerSecond, p99: half.p99 },
    p99AtHalfLoadMet: half.p99 <= 50,
    beyondSaturation: { connections: last.connections, ratioToPeak: round(last.contactsPerSecond / peak, 3), p99: last.p99 },
    throughputHolds: last.contactsPerSecond >= 0.8 * peak,
  };
}

function percentiles(latencies: number[]): { p50: number; p95: number; p99: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0, 2);
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

// ---------------------------------------------------------------- listing (GET /api/v2/contacts)

const LISTING_REQUESTS = Number(process.env.BENCH_LISTING_REQUESTS ?? 200);
const LISTING_ONLY = (process.env.BENCH_LISTING_ONLY ?? '').split(',').map((part) => part.trim()).filter(Boolean);

/**
 * Pages of 1,000 from the organization holding the EXISTING contacts, one request at a time, each
 * starting at a random position of the walk (a cursor made with the service's own encoder), for
 * every filter alone and their combinations. The data: every contact in the big list (100%), every
 * 10th in a second list, every 100th in a third (1%) and every 33rd in a fourth (3%: where walking
 * the email index and gathering the list's members cost about the same, the planner's worst case);
 * every 50th suppressed (2%); updatedAt spread evenly over the last 100 days (loadExisting).
 */
async function runListing(service: Service, stats: StatementStats, url: string, fx: Fixtures): Promise<Record<string, unknown>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const lists: Record<string, string> = keptState.listingLists ?? { all: fx.listIds[0] };
  try {
    if (!keptState.listingLists) await loadListingData(client, fx, lists);
    keptState.listingLists = lists;
    saveKeptState();
    // Also after a migration rewrote a kept database's tables (as autovacuum would, in time).
    for (const table of ['contacts', 'list_memberships', 'suppressions']) await client.query(`VACUUM ANALYZE ${table}`);
    // A server that has been running has these in its cache; load them as it would have (when pg_prewarm exists).
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
      // The three tables the listing reads and every index of theirs.
      const { rows } = await client.query<{ relation: string }>(
        `SELECT unnest(ARRAY[tablename]) AS relation FROM (VALUES ('contacts'), ('list_memberships'), ('suppressions')) AS t(tablename)
         UNION ALL SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('contacts', 'list_memberships', 'suppressions')`,
      );
      for (const { relation } of rows) await client.query('SELECT pg_prewarm($1)', [relation]);
    } catch (error) {
      log(`listing: pg_prewarm unavailable (${(error as Error).message}); the first pages read from disk`);
    }
  } finally {
    await client.end();
  }
  return measureListing(service, stats, fx, lists);
}

/** The listing scenarios' lists (100%, 10%, 3%, 1% of the existing contacts) and suppressions (2%), set-based. */
async function loadListingData(client: Client, fx: Fixtures, lists: Record<string, string>): Promise<void> {
  log('listing: adding lists, suppressions and update times (set-based), then ANALYZE');
  for (const [name, every] of [['tenth', 10], ['hundredth', 100], ['thirtythird', 33]] as const) {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO lists (organization_id, name) VALUES ($1, $2) RETURNING id`,
      [fx.organizationId, `Listing ${name}`],
    );
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

async function measureListing(service: Service, stats: StatementStats, fx: Fixtures, lists: Record<string, string>): Promise<Record<string, unknown>> {
  const { encodeCursor } = await import('../src/contacts/listing/listing-query');
  const day = 86_400_000;
  const recent = new Date(Date.now() - day).toISOString(); // about 1% of the contacts
  const month = new Date(Date.now() - 30 * day).toISOString(); // about 30%
  const scenarios: Array<[string, { listId?: string; suppressed?: boolean; updatedSince?: string }]> = [
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
  const figures: Record<
    string,
    { p50: number; p95: number; p99: number; meanContacts: number; requests: number; non200: number; serviceCpuMsPerRequest: number | null; topStatements?: unknown }
  > = {};
  for (const [name, filters] of scenarios) {
    if (LISTING_ONLY.length > 0 && !LISTING_ONLY.some((part) => name.includes(part))) continue;
    const query = new URLSearchParams({ limit: '1000' });
    if (filters.listId) query.set('listId', filters.listId);
    if (filters.suppressed !== undefined) query.set('suppressed', String(filters.suppressed));
    if (filters.updatedSince) query.set('updatedSince', filters.updatedSince);
    const cursorFilters = {
      listId: filters.listId ?? null,
      suppressed: filters.suppressed ?? null,
      updatedSince: filters.updatedSince ? new Date(filters.updatedSince) : null,
    };
    const latencies: number[] = [];
    let contacts = 0;
    let non200 = 0;
    let cpuBefore: number | null = null;
    for (let i = 0; i < LISTING_REQUESTS + 5; i++) {
      if (i === 5) {
        await stats.reset();
        cpuBefore = service.cpuSeconds();
      }
      // A random position; the first request of each scenario starts at the beginning.
      const after = `existing-${Math.floor(Math.random() * EXISTING)}@bench.example.com`;
      const withCursor = new URLSearchParams(query);
      if (i % 10 !== 0) withCursor.set('cursor', encodeCursor(after, cursorFilters));
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${service.port}/api/v2/contacts?${withCursor.toString()}`, {
        headers: { authorization: `Bearer ${fx.key}` },
      });
      const body = (await res.json()) as { contacts?: unknown[] };
      const elapsed = performance.now() - started;
      if (i < 5) continue; // warm-up
      if (res.status !== 200) non200++;
      latencies.push(elapsed);
      contacts += body.contacts?.length ?? 0;
    }
    const cpuAfter = service.cpuSeconds();
    const database = await stats.read();
    figures[name] = {
      ...percentiles(latencies),
      meanContacts: Math.round(contacts / latencies.length),
      requests: latencies.length,
      non200,
      // CPU time of the service process per page: steadier than wall-clock on a shared machine.
      serviceCpuMsPerRequest: cpuBefore !== null && cpuAfter !== null ? round(((cpuAfter - cpuBefore) * 1000) / latencies.length, 2) : null,
      topStatements: database.top?.slice(0, 2),
    };
    const top = database.top?.[0];
    log(
      `listing ${name}: p50 ${figures[name].p50} ms, p99 ${figures[name].p99} ms, ${figures[name].meanContacts} contacts a page, ` +
        `service CPU ${figures[name].serviceCpuMsPerRequest} ms a page, top statement ${top ? `${round(top.meanMs, 2)} ms × ${top.calls}` : 'n/a'}`,
    );
  }
  return { pageSize: 1000, requestsPerScenario: LISTING_REQUESTS, scenarios: figures };
}

// ---------------------------------------------------------------- events feed (GET /api/v2/events)

const FEED_EVENTS = Number(process.env.BENCH_FEED_EVENTS ?? 50_000);
// 1,000 timed pages (300 until 2026-11-25): the p99 of 300 pages was their third slowest, so one
// stall of the 2 shared cores decided it; of 1,000 it is the tenth (docs/performance.md, "Events
// feed, sixth pass"). Every page timed and kept, the percentiles computed as before.
const FEED_REQUESTS = Number(process.env.BENCH_FEED_REQUESTS ?? 1000);
const FEED_WRITERS = Number(process.env.BENCH_FEED_WRITERS ?? 0);

/**
 * Pages of 1,000 events of the organization the scenarios above wrote to (contact.created and
 * contact.updated, whole contacts in `data`), topped up with batch creates to BENCH_FEED_EVENTS,
 * then ANALYZE. One request at a time: each from a random cursor of the walk (a page read at the
 * start, whose cursors are then reused), and every tenth from the start (no `after`). With
 * BENCH_FEED_WRITERS, that many connections make batch creates of the same organization meanwhile.
 */
async function runFeed(service: Service, stats: StatementStats, url: string, fx: Fixtures): Promise<Record<string, unknown>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  // `ms`: to the body's last byte; `parsedMs`: and parsed by this process (the client's own work,
  // which the figures before 2026-11-24 09:00 UTC included).
  const get = async (query: string) => {
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${service.port}/api/v2/events?${query}`, { headers: { authorization: `Bearer ${fx.key}` } });
    const text = await res.text();
    const ms = performance.now() - started;
    const body = JSON.parse(text) as { events?: unknown[]; nextCursor?: string };
    const parsedMs = performance.now() - started;
    return { status: res.status, events: body.events?.length ?? 0, nextCursor: body.nextCursor, ms, parsedMs, bytes: Buffer.byteLength(text) };
  };
  // One batch create from `make` (the feed's top-up), body read to the end.
  const postBatch = async (make: ReturnType<typeof batchCreate>) => {
    const made = make();
    const res = await fetch(`http://127.0.0.1:${service.port}${made.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(made.body),
    });
    await res.arrayBuffer();
  };
  // The service's own duration of the pages (http_request_duration_seconds of the route): mean and
  // share within 10 / 25 ms, from /metrics before and after.
  const serverDurations = async () => {
    const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
    const pick = (suffix: string, le?: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith(`http_request_duration_seconds_${suffix}{`) && line.includes('route="/api/v2/events"') && line.includes('status="200"'))
        .filter((line) => le === undefined || line.includes(`le="${le}"`))
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    return { sum: pick('sum'), count: pick('count'), le10: pick('bucket', '0.01'), le25: pick('bucket', '0.025') };
  };
  let events: number;
  try {
    const count = async () =>
      Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE organization_id = $1', [fx.organizationId])).rows[0].n);
    events = await count();
    log(`feed: ${events} events; topping up to ${FEED_EVENTS} with batch creates`);
    const make = batchCreate(fx);
    while (events < FEED_EVENTS) {
      await Promise.all(Array.from({ length: 4 }, () => postBatch(make)));
      events += 4 * BATCH;
    }
    events = await count();
    await client.query('VACUUM ANALYZE events');
    await client.query('VACUUM ANALYZE event_commits');
  } finally {
    await client.end();
  }
  // The walk's cursors, one per page of 1,000.
  const cursors: string[] = [];
  let after = '';
  for (;;) {
    const page = await get(`limit=1000${after ? `&after=${after}` : ''}`);
    if (page.events === 0 || !page.nextCursor) break;
    cursors.push(after);
    after = page.nextCursor;
  }
  const writers = FEED_WRITERS > 0 ? await startFeedWriters(service, fx, FEED_WRITERS) : null;
  const latencies: number[] = [];
  const parsedLatencies: number[] = [];
  // BENCH_FEED_TRACE=<file>: one JSON line a timed page (its start as epoch ms, ms to the last byte,
  // status), to lay the slow pages beside the service's GCs and statements (docs/performance.md).
  const trace: string[] = [];
  let returned = 0;
  let bodyBytes = 0;
  let non200 = 0;
  let cpuBefore: number | null = null;
  let serverBefore: Awaited<ReturnType<typeof serverDurations>> | null = null;
  for (let i = 0; i < FEED_REQUESTS + 5; i++) {
    if (i === 5) {
      serverBefore = await serverDurations();
      await stats.reset();
      cpuBefore = service.cpuSeconds();
    }
    const cursor = i % 10 === 0 ? '' : cursors[Math.floor(Math.random() * Math.max(1, cursors.length - 1))];
    // The bench's own garbage (the previous page's body, its JSON.parse) collected between pages, not
    // inside the next page's timed fetch (collectOwnGarbage).
    collectOwnGarbage(i % 25 === 0 ? 'major' : 'minor');
    const startedAt = performance.timeOrigin + performance.now();
    const page = await get(`limit=1000${cursor ? `&after=${cursor}` : ''}`);
    if (i < 5) continue; // warm-up
    if (process.env.BENCH_FEED_TRACE) trace.push(JSON.stringify({ t: startedAt, ms: page.ms, status: page.status, events: page.events }));
    if (page.status !== 200) non200++;
    latencies.push(page.ms);
    parsedLatencies.push(page.parsedMs);
    returned += page.events;
    bodyBytes += page.bytes;
  }
  const cpuAfter = service.cpuSeconds();
  if (process.env.BENCH_FEED_TRACE) writeFileSync(process.env.BENCH_FEED_TRACE, `${trace.join('\n')}\n`);
  const writes = writers === null ? 0 : await writers.stop();
  const database = await stats.read();
  const serverAfter = await serverDurations();
  const served = serverBefore === null ? null : serverAfter.count - serverBefore.count;
  const server =
    serverBefore === null || !served
      ? null
      : {
          meanMs: round(((serverAfter.sum - serverBefore.sum) * 1000) / served, 2),
          within10ms: round((serverAfter.le10 - serverBefore.le10) / served, 3),
          within25ms: round((serverAfter.le25 - serverBefore.le25) / served, 3),
        };
  const parsed = percentiles(parsedLatencies);
  const figures = {
    events,
    pageSize: 1000,
    requests: latencies.length,
    ...percentiles(latencies),
    // The same requests until parsed by the bench process (the earlier figures' measure).
    withClientParse: { p50: parsed.p50, p95: parsed.p95, p99: parsed.p99 },
    // The service's own duration (its http_request_duration_seconds).
    server,
    meanEvents: Math.round(returned / latencies.length),
    meanBodyBytes: Math.round(bodyBytes / latencies.length),
    non200,
    serviceCpuMsPerRequest: cpuBefore !== null && cpuAfter !== null ? round(((cpuAfter - cpuBefore) * 1000) / latencies.length, 2) : null,
    statementsPerRequest: database.statements === null ? null : round(database.statements / latencies.length, 2),
    topStatements: database.top?.slice(0, FEED_WRITERS > 0 ? 4 : 2),
    ...(FEED_WRITERS > 0 ? { writers: FEED_WRITERS, batchCreates: writes } : {}),
  };
  log(
    `feed: p50 ${figures.p50} ms, p99 ${figures.p99} ms to the last byte (${parsed.p99} ms parsed), server mean ${server?.meanMs} ms, ` +
      `${figures.serviceCpuMsPerRequest} ms CPU, ${figures.meanEvents} events, ${figures.meanBodyBytes} bytes a page`,
  );
  return figures;
}

/**
 * A GC of this process, run between two timed pages of `feed` (a young-generation one, a full one
 * every 25 pages), so that the bench's own garbage (each ~520 kB body as a string and its
 * JSON.parse) is collected while no page is in flight rather than during the next page's timed
 * fetch. Without it the bench made 18 scavenges and 4 mark-compacts in 300 pages (17–42 ms each at
 * load 20), and its mark-compacts were in the 3 slowest pages: the p99 of 300 pages measured the
 * bench's GC (docs/performance.md, "Events feed, sixth pass"). Every page is still timed, from the
 * request to the body's last byte.
 */
let ownGc: ((options?: { type: 'minor' }) => void) | null = null;
function collectOwnGarbage(type: 'minor' | 'major'): void {
  if (ownGc === null) {
    v8.setFlagsFromString('--expose-gc');
    ownGc = runInNewContext('gc') as typeof ownGc;
  }
  // Node 20's gc() takes { type: 'minor' }; { type: 'major' } also made a young-generation GC (checked
  // with a PerformanceObserver): a full GC is gc() without options.
  if (type === 'minor') ownGc!({ type });
  else ownGc!();
}

/**
 * BENCH_FEED_WRITERS: that many connections making 50-contact batch creates (as `batchCreate`) of
 * the organization, one after the other each, until stopped. In a worker thread with its own event
 * loop and heap, as writers of their own would be: on the bench's event loop, the page reader's
 * response waited behind the writers' requests and the bench's garbage collections of their bodies
 * (2026-11-24 22:20 UTC, a traced run: the bench's 30 GCs summed 655 ms in 300 pages and came in 4
 * of the 12 slowest; docs/performance.md, "Events feed, fifth pass"). `stop` answers how many batch
 * creates were made.
 */
const FEED_WRITERS_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { port, key, listIds, batch, writers, tag } = workerData;
let writing = true;
let writes = 0;
let sequence = 0;
const row = () => ({ email: tag + '-' + ++sequence + '@bench.example.com', listIds, fields: { firstName: 'Ada', city: 'Oslo', plan: 'pro', seats: 3 }, overwrite: false });
const loops = Array.from({ length: writers }, async () => {
  while (writing) {
    const res = await fetch('http://127.0.0.1:' + port + '/api/v2/contacts/batch', {
      method: 'POST',
      headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
      body: JSON.stringify({ contacts: Array.from({ length: batch }, row) }),
    });
    await res.arrayBuffer();
    writes++;
  }
});
parentPort.on('message', async (message) => {
  if (message !== 'stop') return;
  writing = false;
  await Promise.all(loops);
  parentPort.postMessage({ writes });
});
`;

async function startFeedWriters(service: Service, fx: Fixtures, writers: number): Promise<{ stop(): Promise<number> }> {
  const worker = new Worker(FEED_WRITERS_SOURCE, {
    eval: true,
    workerData: { port: service.port, key: fx.key, listIds: fx.listIds, batch: BATCH, writers, tag: `fw-${process.pid}-${Date.now()}` },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('online', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      const done = new Promise<number>((resolve, reject) => {
        worker.once('message', (message: { writes: number }) => resolve(message.writes));
        worker.once('error', reject);
      });
      worker.postMessage('stop');
      const writes = await done;
      await worker.terminate();
      return writes;
    },
  };
}

// ---------------------------------------------------------------- raw baselines (pg directly)

type RawWork = (client: Client | import('pg').PoolClient, fx: Fixtures) => Promise<number>;

/** The same rows, set-based, one transaction per 50 rows: contacts, then their 100 memberships. */
const rawBatch: RawWork = async (client, fx) => {
  const ids = Array.from({ length: BATCH }, () => randomUUID());
  const emails = ids.map(() => freshEmail('rb'));
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO contacts (id, organization_id, email, first_name, city, custom_fields, created_at, updated_at)
     SELECT r.id, $1, r.email, 'Ada', 'Oslo', '{"plan":"pro","seats":3}'::jsonb, now(), now()
     FROM unnest($2::text[], $3::text[]) AS r(id, email)
     ON CONFLICT (organization_id, email) DO UPDATE SET first_name = EXCLUDED.first_name, updated_at = now()`,
    [fx.organizationId, ids, emails],
  );
  await client.query(
    `INSERT INTO list_memberships (contact_id, list_id, email)
     SELECT c.id, l, c.email FROM unnest($1::text[], $3::text[]) AS c(id, email) CROSS JOIN unnest($2::text[]) AS l ON CONFLICT DO NOTHING`,
    [ids, fx.listIds, emails],
  );
  await client.query('COMMIT');
  return BATCH;
};

/** The single endpoint's transaction: BEGIN, advisory lock, contact, memberships, stored answer, COMMIT. */
const rawSingle: RawWork = async (client, fx) => {
  const id = randomUUID();
  const email = freshEmail('rs');
  await client.query('BEGIN');
  await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0))`, [fx.organizationId, email]);
  await client.query(
    `INSERT INTO contacts (id, organization_id, email, first_name, city, custom_fields, created_at, updated_at)
     VALUES ($1, $2, $3, 'Ada', 'Oslo', '{"plan":"pro","seats":3}'::jsonb, now(), now())`,
    [id, fx.organizationId, email],
  );
  await client.query(`INSERT INTO list_memberships (contact_id, list_id, email) SELECT $1, l, $3 FROM unnest($2::text[]) AS l`, [id, fx.listIds, email]);
  await client.query(`INSERT INTO stored_responses (request_id, organization_id, status, body) VALUES ($1, $2, 201, $3::json)`, [
    randomUUID(),
    fx.organizationId,
    JSON.stringify({ status: 'created', email, id }),
  ]);
  await client.query('COMMIT');
  return 1;
};

async function runRaw(url: string, stats: StatementStats, fx: Fixtures, name: string, connections: number, work: RawWork): Promise<Scenario> {
  const pool = new Pool({ connectionString: url, max: connections });
  const loop = async (until: number, latencies: number[]) => {
    const client = await pool.connect();
    try {
      while (Date.now() < until) {
        const started = process.hrtime.bigint();
        await work(client, fx);
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    } finally {
      client.release();
    }
  };
  const run = async (seconds: number) => {
    const latencies: number[] = [];
    const started = Date.now();
    await Promise.all(Array.from({ length: connections }, () => loop(started + seconds * 1000, latencies)));
    return { latencies, seconds: (Date.now() - started) / 1000 };
  };
  try {
    await run(WARMUP_SECONDS);
    log(`${name}: ${SECONDS} s at ${connections} connections`);
    await stats.reset();
    const measured = await run(SECONDS);
    const counted = await stats.read();
    const perRequest = work === rawBatch ? BATCH : 1;
    const requests = measured.latencies.length;
    return {
      name,
      unit: perRequest > 1 ? 'contacts' : 'requests',
      perSecond: round((requests * perRequest) / measured.seconds),
      requests,
      ...percentiles(measured.latencies),
      statementsPerRequest: counted.statements === null ? null : round(counted.statements / requests, 2),
      transactionsPerRequest: round(counted.transactions / requests, 2),
      topStatements: counted.top,
      peakRssMiB: null,
      status5xx: 0,
      statuses: {},
    };
  } finally {
    await pool.end();
  }
}

// ---------------------------------------------------------------- database, fixtures, service

async function freshDatabase(): Promise<{ url: string; stop(): Promise<void> }> {
  const name = `contact_sync_bench_${process.pid}_${Date.now()}`;
  if (process.env.DATABASE_URL && KEEP_DIR) throw new Error('BENCH_DATA_DIR keeps an embedded server: unset DATABASE_URL');
  if (process.env.DATABASE_URL) {
    const serverUrl = databaseUrlOn(process.env.DATABASE_URL, 'postgres');
    await ensureDatabase(serverUrl, name);
    const url = databaseUrlOn(serverUrl, name);
    await applyMigrations(url);
    return { url, stop: () => sql(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
  }
  const parent = KEEP_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'contact-sync-bench-'));
  const kept = KEEP_DIR !== null && existsSync(path.join(KEEP_DIR, 'pg'));
  if (KEEP_DIR) mkdirSync(KEEP_DIR, { recursive: true });
  chmodSync(parent, 0o755); // as root, PostgreSQL runs as its own user and must reach the folder
  const dataDir = path.join(parent, 'pg');
  const port = await freePort();
  let server: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir, port, persistent: true });
  if (kept) {
    // Settings below were kept by ALTER SYSTEM; the bench database and its data too.
    const keptName = 'contact_sync_bench_kept';
    await ensureDatabase(server.serverUrl, keptName);
    const keptUrl = databaseUrlOn(server.serverUrl, keptName);
    try {
      await applyMigrations(keptUrl);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return { url: keptUrl, stop: () => server.stop() };
  }
  // pg_stat_statements needs preloading: set it and restart once.
  await sql(server.serverUrl, `ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
  // With --existing, a production-like buffer cache instead of the 128 MB development default: the
  // 1,000,000 contacts and their indexes take about 1.3 GB (BENCH_SHARED_BUFFERS to change it).
  if (EXISTING > 0) await sql(server.serverUrl, `ALTER SYSTEM SET shared_buffers = '${process.env.BENCH_SHARED_BUFFERS ?? '1GB'}'`);
  await server.stop();
  server = await startEmbeddedPostgres({ dataDir, port, persistent: true });
  const database = KEEP_DIR ? 'contact_sync_bench_kept' : name;
  await ensureDatabase(server.serverUrl, database);
  const url = databaseUrlOn(server.serverUrl, database);
  await applyMigrations(url);
  return {
    url,
    stop: async () => {
      await server.stop();
      if (!KEEP_DIR) rmSync(parent, { recursive: true, force: true });
    },
  };
}

async function sql(url: string, text: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function serverVersion(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v;
  } finally {
    await client.end();
  }
}

/** Statements (pg_stat_statements when loadable) and transactions (pg_stat_database) of the bench database. */
class StatementStats {
  private constructor(
    private readonly client: Client,
    private readonly hasStatements: boolean,
    private xacts = 0,
  ) {}

  static async open(url: string): Promise<StatementStats> {
    const client = new Client({ connectionString: url });
    await client.connect();
    let has = false;
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await client.query('SELECT pg_stat_statements_reset()');
      has = true;
    } catch (error) {
      log(`pg_stat_statements unavailable (${(error as Error).message}): statements per request reported as null`);
    }
    return new StatementStats(client, has);
  }

  async reset(): Promise<void> {
    if (this.hasStatements) await this.client.query('SELECT pg_stat_statements_reset()');
    this.xacts = await this.transactions();
  }

  async read(): Promise<{ statements: number | null; transactions: number; top?: Scenario['topStatements'] }> {
    const transactions = (await this.transactions()) - this.xacts;
    if (!this.hasStatements) return { statements: null, transactions };
    const mine = `dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND query NOT ILIKE '%pg_stat%' AND query NOT ILIKE '%pg_database%'`;
    const { rows } = await this.client.query<{ calls: string | null }>(
      `SELECT sum(calls)::bigint AS calls FROM pg_stat_statements WHERE ${mine}`,
    );
    const top = await this.client.query<{ query: string; calls: string; mean: number; max: number }>(
      `SELECT regexp_replace(left(query, 70), '\\s+', ' ', 'g') AS query, calls::bigint AS calls, mean_exec_time AS mean, max_exec_time AS max
       FROM pg_stat_statements WHERE ${mine} ORDER BY total_exec_time DESC LIMIT 4`,
    );
    return {
      statements: Number(rows[0].calls ?? 0),
      transactions,
      top: top.rows.map((r) => ({ query: r.query, calls: Number(r.calls), meanMs: round(r.mean, 3), maxMs: round(r.max, 1) })),
    };
  }

  private async transactions(): Promise<number> {
    // pg_stat_database is refreshed with a delay; force a fresh snapshot.
    await this.client.query('SELECT pg_stat_clear_snapshot()');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const { rows } = await this.client.query<{ n: string }>(
      'SELECT (xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0].n);
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

/** Organization, key, 2 lists, 2 custom fields: made with the admin code, as an operator would. */
async function makeFixtures(url: string, kept?: Omit<Fixtures, 'adminKey'>): Promise<Fixtures> {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
  const admin = async (argv: string[]) => {
    const command = parseAdminCommand(argv);
    if (command.command === 'migrate') throw new Error('bench fixtures never migrate');
    return executeAdminCommand(prisma, command);
  };
  try {
    if (kept) {
      // A kept database made before the admin key existed.
      const adminKey = (await admin(['key', 'create', '--org', kept.organizationId, '--scope', 'admin'])) as { key: string };
      return { ...kept, adminKey: adminKey.key };
    }
    const org = (await admin(['org', 'create', '--name', 'Bench'])) as { id: string };
    const key = (await admin(['key', 'create', '--org', org.id])) as { key: string };
    const adminKey = (await admin(['key', 'create', '--org', org.id, '--scope', 'admin'])) as { key: string };
    const a = (await admin(['list', 'create', '--org', org.id, '--name', 'Newsletter'])) as { id: string };
    const b = (await admin(['list', 'create', '--org', org.id, '--name', 'Customers'])) as { id: string };
    await admin(['field', 'create', '--org', org.id, '--key', 'plan', '--type', 'select', '--options', 'free,pro']);
    await admin(['field', 'create', '--org', org.id, '--key', 'seats', '--type', 'number']);
    return { organizationId: org.id, key: key.key, adminKey: adminKey.key, listIds: [a.id, b.id] };
  } finally {
    await prisma.$disconnect();
  }
}

/** Contacts for batchOverwrite and singleUnchanged, written through the service (not measured). */
async function seedOverwriteContacts(service: Service, fx: Fixtures): Promise<{ changing: string[]; stable: string[] }> {
  const changing = Array.from({ length: 20 * (BATCH / 2) }, () => freshEmail('ow-c'));
  const stable = Array.from({ length: 20 * (BATCH / 2) }, () => freshEmail('ow-s'));
  const all = [...changing, ...stable];
  for (let i = 0; i < all.length; i += BATCH) {
    const res = await fetch(`http://127.0.0.1:${service.port}/api/v2/contacts/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ contacts: all.slice(i, i + BATCH).map((email) => row(email, fx)) }),
    });
    if (res.status !== 200) throw new Error(`seeding contacts answered ${res.status}`);
  }
  return { changing, stable };
}

/** `count` contacts with a membership each, set-based (INSERT ... SELECT generate_series), then ANALYZE. */
async function loadExisting(url: string, fx: Fixtures, count: number): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO contacts (id, organization_id, email, first_name, city, custom_fields, created_at, updated_at)
       SELECT gen_random_uuid()::text, $1, 'existing-' || g || '@bench.example.com', 'Ada', 'Oslo', '{"plan":"pro"}'::jsonb,
              -- updatedAt spread evenly over the last 100 days (the listing's updatedSince scenarios)
              now() - ((g::bigint * 7919) % 8640000) * interval '1 second', now() - ((g::bigint * 7919) % 8640000) * interval '1 second'
       FROM generate_series(1, $2::int) AS g`,
      [fx.organizationId, count],
    );
    await client.query(
      `INSERT INTO list_memberships (contact_id, list_id, email)
       SELECT id, $2, email FROM contacts WHERE organization_id = $1 AND email LIKE 'existing-%'`,
      [fx.organizationId, fx.listIds[0]],
    );
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/**
 * `count` stored answers (GET /requests) of the organization, set-based: each holds two existing
 * addresses (existing-g and existing-g+1, as a batch answer would), every tenth address is also
 * suppressed (so erase keeps a hashed suppression too); then ANALYZE (autovacuum may be off).
 */
async function loadStoredAnswers(url: string, fx: Fixtures, count: number, existing: number): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
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
  } finally {
    await client.end();
  }
}

/** POST /contacts/{email}/erase of `requests` distinct existing addresses, one at a time: p50/p95/p99. */
async function runErase(service: Service, stats: StatementStats, fx: Fixtures, requests: number, run = 0): Promise<Scenario> {
  log(`erase: ${requests} requests, 1 connection`);
  await stats.reset();
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const cpuBefore = service.cpuSeconds();
  const started = Date.now();
  for (let g = 1; g <= requests; g++) {
    const email = `existing-${g * 7 + run}@bench.example.com`; // spread over the table, each erased once (run: a kept database's earlier runs)
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${service.port}/api/v2/contacts/${encodeURIComponent(email)}/erase`, {
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
    status5xx: Object.entries(statuses)
      .filter(([status]) => status.startsWith('5'))
      .reduce((sum, [, n]) => sum + n, 0),
    statuses,
  };
}

// ---------------------------------------------------------------- tracing overhead

/**
 * BENCH_TRACING=1: the same scenarios (BENCH_ONLY, default singleCreate,batchCreate) against two
 * services on one database, the plain one and one with OpenTelemetry on at BENCH_TRACING_RATIO
 * (0.1: `parentbased_traceidratio`, as docs/production.md recommends) exporting OTLP/HTTP
 * (protobuf, the spec's default) to a sink in this process that reads and acknowledges every
 * export. Runs alternate plain/traced BENCH_TRACING_ROUNDS times (3) so that a noisy neighbour
 * hits both; the overhead is 1 - median(traced) / median(plain), per scenario.
 * Before a scenario's rounds both services are warmed alike, BENCH_TRACING_WARMUP_SECONDS (30)
 * each of the same load, in alternated slices (results discarded, 5xx still counted): the rounds
 * then measure the steady state of both arms, not V8 compiling the traced service's sampled path
 * (run by 1 request in 10, so hot ten times later) inside them. A fresh process's warm-up is a
 * one-time cost, measured by the coldFirst5s scenario, not a per-request overhead.
 */
async function tracingComparison(url: string, stats: StatementStats, fx: Fixtures, plain: Service) {
  const ratio = process.env.BENCH_TRACING_RATIO ?? '0.1';
  const rounds = Number(process.env.BENCH_TRACING_ROUNDS ?? 3);
  const warmupSeconds = Number(process.env.BENCH_TRACING_WARMUP_SECONDS ?? 30);
  const names = (process.env.BENCH_ONLY ?? 'singleCreate,batchCreate').split(',').filter(Boolean);
  const { server, port: sinkPort, stats: sink } = await startOtlpSink();
  const traced = await startService(url, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}`,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: ratio,
  });
  const bodies: Record<string, { connections: number; next: Body }> = {
    singleCreate: { connections: SINGLE_CONNECTIONS, next: singleCreate(fx) },
    batchCreate: { connections: BATCH_CONNECTIONS, next: batchCreate(fx) },
    batchMixed: { connections: BATCH_CONNECTIONS, next: batchMixed(fx) },
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const scenarios: Record<string, unknown> = {};
  let status5xx = 0;
  try {
    for (const name of names) {
      const chosen = bodies[name];
      if (!chosen) throw new Error(`BENCH_TRACING: no scenario ${name} (use ${Object.keys(bodies).join(', ')})`);
      // Steady state first, for both arms alike: slices of at most 10 s, alternated.
      const slices = Math.ceil(warmupSeconds / 10);
      for (let slice = 0; slice < slices; slice++) {
        for (const service of [plain, traced]) {
          log(`${name}-tracing warm-up ${slice + 1}/${slices} (${service === plain ? 'off' : 'on'})`);
          const warm = await cannon(service, fx, chosen.connections, warmupSeconds / slices, chosen.next);
          status5xx += Object.entries(warm.statuses)
            .filter(([status]) => status.startsWith('5'))
            .reduce((sum, [, n]) => sum + n, 0);
        }
      }
      const runs: Record<'off' | 'on', Scenario[]> = { off: [], on: [] };
      for (let round = 0; round < rounds; round++) {
        for (const [mode, service] of [
          ['off', plain],
          ['on', traced],
        ] as const) {
          const run = await runHttp(service, stats, fx, `${name}-tracing-${mode}`, chosen.connections, SECONDS, WARMUP_SECONDS, chosen.next);
          status5xx += run.status5xx;
          runs[mode].push(run);
        }
      }
      const rate = (mode: 'off' | 'on') => median(runs[mode].map((r) => r.perSecond));
      const cpu = (mode: 'off' | 'on') => median(runs[mode].map((r) => r.serviceCpuMsPerRequest ?? NaN));
      scenarios[name] = {
        unit: runs.off[0].unit,
        off: { perSecond: runs.off.map((r) => r.perSecond), p99: runs.off.map((r) => r.p99), cpuMsPerRequest: runs.off.map((r) => r.serviceCpuMsPerRequest) },
        on: { perSecond: runs.on.map((r) => r.perSecond), p99: runs.on.map((r) => r.p99), cpuMsPerRequest: runs.on.map((r) => r.serviceCpuMsPerRequest) },
        throughputOverheadPercent: round((1 - rate('on') / rate('off')) * 100, 1),
        cpuOverheadPercent: round((cpu('on') / cpu('off') - 1) * 100, 1),
      };
    }
  } finally {
    await traced.stop();
    await new Promise((resolve) => server.close(resolve));
  }
  return {
    status5xx,
    report: { sampler: 'parentbased_traceidratio', ratio: Number(ratio), rounds, seconds: SECONDS, warmupSecondsEach: warmupSeconds, sink, scenarios },
  };
}

/**
 * The webhook receiver: a plain node:http server answering 204 and recording when each webhook-id
 * arrived. It runs in a worker thread of this process, with its own event loop, as a receiver
 * process of its own would: on the bench's event loop it took turns with autocannon, whose requests
 * then waited behind up to a thousand receiver requests a second (the batch scenario measured the
 * receiver's queue too). Arrival times are taken in the worker and sent here in batches (every 20 ms).
 */
const RECEIVER_SOURCE = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
const seen = new Set();
let batch = [];
let requests = 0;
const flush = () => {
  if (batch.length === 0 && requests === 0) return;
  parentPort.postMessage({ arrivals: batch, requests });
  batch = [];
  requests = 0;
};
const timer = setInterval(flush, 20);
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    requests++;
    const id = req.headers['webhook-id'];
    if (typeof id === 'string' && !seen.has(id)) {
      seen.add(id);
      batch.push(id, Date.now());
    }
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  server.closeAllConnections();
  server.close(() => {
    clearInterval(timer);
    flush();
    parentPort.postMessage({ closed: true });
  });
});
`;

async function startHookReceiver() {
  const arrivals = new Map<string, number>();
  let requests = 0;
  const worker = new Worker(RECEIVER_SOURCE, { eval: true });
  let closed: () => void = () => undefined;
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message: { port?: number; arrivals?: (string | number)[]; requests?: number; closed?: boolean }) => {
      if (message.port !== undefined) resolve(message.port);
      if (message.arrivals) {
        for (let i = 0; i < message.arrivals.length; i += 2) {
          const id = message.arrivals[i] as string;
          if (!arrivals.has(id)) arrivals.set(id, message.arrivals[i + 1] as number);
        }
      }
      requests += message.requests ?? 0;
      if (message.closed) closed();
    });
  });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    requests: () => requests,
    close: async () => {
      await new Promise<void>((resolve) => {
        closed = resolve;
        worker.postMessage('close');
      });
      await worker.terminate();
    },
  };
}

async function adminCall(service: Service, fx: Fixtures, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${fx.adminKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** Runs `work` while one webhook delivers every event to a local receiver; then waits for the backlog (≤ 120 s). */
async function withWebhook(service: Service, fx: Fixtures, work: () => Promise<unknown>) {
  const receiver = await startHookReceiver();
  const created = await adminCall(service, fx, 'POST', '/api/v2/webhooks', { url: receiver.url, types: ['contact.created', 'contact.updated'] });
  const id = (created.webhook as { id: string }).id;
  try {
    const started = Date.now();
    await work();
    const loadEnded = Date.now();
    let delivered = receiver.arrivals.size;
    const backlogAtEnd = delivered;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const page = (await adminCall(service, fx, 'GET', `/api/v2/webhooks/${id}/deliveries?limit=1`)) as { deliveries: { state: string }[] };
      // Newest first: the newest delivered means the backlog is through (order per webhook is by due time).
      if (page.deliveries[0]?.state !== 'pending' || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 50)); // the receiver's last batch of arrivals
    delivered = receiver.arrivals.size;
    return {
      delivered,
      deliveredDuringLoad: backlogAtEnd,
      deliveredPerSecondDuringLoad: round(backlogAtEnd / ((loadEnded - started) / 1000)),
      drainSeconds: round((Date.now() - loadEnded) / 1000, 2),
      duplicateRequests: receiver.requests() - delivered,
    };
  } finally {
    await adminCall(service, fx, 'DELETE', `/api/v2/webhooks/${id}`);
    await receiver.close();
  }
}

/**
 * 2,000 events per second (40 batches of 50 new contacts a second, paced, not closed-loop) for
 * BENCH_SECONDS with one webhook: latency from each event's commit (event_commits.committed_at,
 * the database clock on this machine) to its arrival at the receiver.
 */
async function webhookLatency(service: Service, stats: StatementStats, fx: Fixtures, url: string) {
  const receiver = await startHookReceiver();
  const created = await adminCall(service, fx, 'POST', '/api/v2/webhooks', { url: receiver.url, types: ['contact.created'] });
  const id = (created.webhook as { id: string }).id;
  const next = batchCreate(fx);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let sent = 0;
  let failed = 0;
  const failedStatuses: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  const post = () => {
    const made = next();
    const body = JSON.stringify(made.body);
    const done = new Promise<void>((resolve) => {
      const req = http.request(
        { host: '127.0.0.1', port: service.port, path: made.path, method: 'POST', agent, headers: { authorization: `Bearer ${fx.key}`, 'content-type': 'application/json' } },
        (res) => {
          if (res.statusCode !== 200) {
            failed++;
            failedStatuses[String(res.statusCode)] = (failedStatuses[String(res.statusCode)] ?? 0) + 1;
          }
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', () => (failed++, (failedStatuses.error = (failedStatuses.error ?? 0) + 1), resolve()));
      req.end(body);
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
    sent++;
  };
  try {
    log(`webhookLatency: 2,000 events/s for ${SECONDS} s`);
    await stats.reset();
    const cpuBefore = service.cpuSeconds();
    const started = Date.now();
    // 40 batches a second, on schedule (a tick that comes late sends what is owed).
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const owed = Math.floor(((Date.now() - started) / 1000) * 40) - sent;
        for (let i = 0; i < owed; i++) post();
        if (Date.now() - started >= SECONDS * 1000) {
          clearInterval(timer);
          resolve();
        }
      }, 5);
    });
    await Promise.all([...inFlight]);
    const expected = sent * BATCH - failed * BATCH;
    const deadline = Date.now() + 60_000;
    while (receiver.arrivals.size < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const cpuAfter = service.cpuSeconds();
    const { top } = await stats.read();
    const client = new Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ id: string; ms: string }>(
      `SELECT 'evt_' || replace(e.id::text, '-', '') AS id, (extract(epoch FROM c.committed_at) * 1000)::float8 AS ms
       FROM events e JOIN event_commits c ON c.organization_id = e.organization_id AND c.xid = e.xid
       WHERE e.organization_id = $1 AND e.type = 'contact.created' AND e.occurred_at >= to_timestamp($2 / 1000.0)`,
      [fx.organizationId, started - 1000],
    );
    await client.end();
    const latencies = rows.map((row) => (receiver.arrivals.get(row.id) ?? Number.POSITIVE_INFINITY) - Number(row.ms)).sort((a, b) => a - b);
    const at = (q: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN, 0);
    return {
      eventsPerSecondOffered: round((sent * BATCH) / ((Date.now() - started) / 1000 > SECONDS ? SECONDS : SECONDS)),
      events: rows.length,
      delivered: receiver.arrivals.size,
      failedRequests: failed,
      failedStatuses,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      maxMs: at(1),
      shareWithin2s: round(latencies.filter((ms) => ms <= 2000).length / Math.max(1, latencies.length), 4),
      // The service's CPU (writing the events and delivering them) per event delivered: steadier than latency on a shared machine.
      serviceCpuMsPerEvent: cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1000) / Math.max(1, receiver.arrivals.size), 3),
      topStatements: top,
    };
  } finally {
    agent.destroy();
    await adminCall(service, fx, 'DELETE', `/api/v2/webhooks/${id}`);
    await receiver.close();
  }
}

async function startService(url: string, extraEnv: Record<string, string> = {}): Promise<Service> {
  const port = await freePort();
  const started = Date.now();
  // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the service.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // Tracing only where asked (extraEnv): OTEL_* of the bench's own environment are not passed on.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, 'dist/main.js'], {
    cwd: PROJECT_ROOT,
    env: {
      ...inherited,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', // info: what production logs (a line per request)
      ORG_RATE_LIMIT: '100000000',
      IP_RATE_LIMIT: '100000000',
      REDIS_URL: '',
      ...extraEnv,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('the service was not ready within 60 s');
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const secondsToReady = round((Date.now() - started) / 1000, 2);
  log(`service ready in ${secondsToReady} s (pid ${child.pid})`);
  const status = (field: string) => {
    try {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return match ? Number(match[1]) : null;
    } catch {
      return null;
    }
  };
  return {
    port,
    secondsToReady,
    sampleRss: () => status('VmRSS'),
    cpuSeconds: () => {
      try {
        // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), in clock ticks (100 per second on Linux).
        const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        return null;
      }
    },
    peakRssMiB: () => {
      const kb = status('VmHWM');
      return kb === null ? null : round(kb / 1024, 1);
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
