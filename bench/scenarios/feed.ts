import { writeFileSync } from 'node:fs';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { withClient } from '../harness/database';
import { log, percentiles, round } from '../harness/figures';
import { BATCH, postBatch, type Fixtures } from '../harness/fixtures';
import { startWorker } from '../harness/worker';
import { batchCreate } from '../harness/requests';
import type { Scenario } from '../harness/scenario';
import type { Service } from '../harness/service';
import type { FeedWritersCommand, FeedWritersDone, FeedWritersOptions } from '../workers/feed-writers.worker';

/** Timed pages unless BENCH_REQUESTS says otherwise: of 1,000, the p99 is the tenth slowest, not one stall of the machine. */
const DEFAULT_PAGES = 1000;

/**
 * GET /api/v2/events, pages of 1,000, one request at a time, of the organization the scenarios
 * before wrote to, topped up with batch creates to BENCH_FEED_EVENTS events, then ANALYZE. Each page
 * starts at a random cursor of the walk (read once first), every tenth at the start. Figures: p50/p95/p99
 * to the body's last byte, the same with the bench's JSON.parse (`withClientParse`), the service's own
 * duration from its /metrics (`server`), its CPU and statements per page. With BENCH_FEED_WRITERS, that
 * many connections make batch creates meanwhile (the horizon then waits for commits in flight);
 * BENCH_FEED_TRACE=<file> writes each timed page's start (epoch ms) and time, one JSON line a page.
 */
export const feed: Scenario = {
  name: 'feed',
  phases: ['empty'],
  run: async (ctx) => {
    const { service, fx, settings, stats } = ctx;
    const pages = settings.requests ?? DEFAULT_PAGES;
    const get = async (query: string) => {
      const started = performance.now();
      const res = await fetch(`${service.baseUrl}/api/v2/events?${query}`, { headers: { authorization: `Bearer ${fx.key}` } });
      const text = await res.text();
      const ms = performance.now() - started;
      const body = JSON.parse(text) as { events?: unknown[]; nextCursor?: string };
      const parsedMs = performance.now() - started;
      return { status: res.status, events: body.events?.length ?? 0, nextCursor: body.nextCursor, ms, parsedMs, bytes: Buffer.byteLength(text) };
    };
    const events = await withClient(ctx.url, async (client) => {
      const count = async () =>
        Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE organization_id = $1', [fx.organizationId])).rows[0].n);
      let n = await count();
      log(`feed: ${n} events; topping up to ${settings.feedEvents} with batch creates`);
      const make = batchCreate(fx);
      while (n < settings.feedEvents) {
        await Promise.all(Array.from({ length: 4 }, () => postBatch(service, fx, make().body.contacts as Record<string, unknown>[])));
        n += 4 * BATCH;
      }
      await client.query('VACUUM ANALYZE events');
      await client.query('VACUUM ANALYZE event_commits');
      return count();
    });
    // The walk's cursors, one per page of 1,000.
    const cursors: string[] = [];
    let after = '';
    for (;;) {
      const page = await get(`limit=1000${after ? `&after=${after}` : ''}`);
      if (page.events === 0 || !page.nextCursor) break;
      cursors.push(after);
      after = page.nextCursor;
    }
    const writers = settings.feedWriters > 0 ? await startFeedWriters(service, fx, settings.feedWriters) : null;
    const latencies: number[] = [];
    const parsedLatencies: number[] = [];
    const trace: string[] = [];
    let returned = 0;
    let bodyBytes = 0;
    let non200 = 0;
    let cpuBefore: number | null = null;
    let serverBefore: ServerDurations | null = null;
    for (let i = 0; i < pages + 5; i++) {
      if (i === 5) {
        serverBefore = await serverDurations(service);
        await stats.reset();
        cpuBefore = service.cpuSeconds();
      }
      const cursor = i % 10 === 0 ? '' : cursors[Math.floor(Math.random() * Math.max(1, cursors.length - 1))];
      collectOwnGarbage(i % 25 === 0 ? 'major' : 'minor');
      const startedAt = performance.timeOrigin + performance.now();
      const page = await get(`limit=1000${cursor ? `&after=${cursor}` : ''}`);
      if (i < 5) continue; // warm-up
      if (settings.feedTrace) trace.push(JSON.stringify({ t: startedAt, ms: page.ms, status: page.status, events: page.events }));
      if (page.status !== 200) non200++;
      latencies.push(page.ms);
      parsedLatencies.push(page.parsedMs);
      returned += page.events;
      bodyBytes += page.bytes;
    }
    const cpuAfter = service.cpuSeconds();
    if (settings.feedTrace) writeFileSync(settings.feedTrace, `${trace.join('\n')}\n`);
    const writes = writers === null ? 0 : await writers.stop();
    const database = await stats.read();
    const serverAfter = await serverDurations(service);
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
      withClientParse: { p50: parsed.p50, p95: parsed.p95, p99: parsed.p99 },
      server,
      meanEvents: Math.round(returned / latencies.length),
      meanBodyBytes: Math.round(bodyBytes / latencies.length),
      non200,
      serviceCpuMsPerRequest: cpuBefore !== null && cpuAfter !== null ? round(((cpuAfter - cpuBefore) * 1000) / latencies.length, 2) : null,
      statementsPerRequest: database.statements === null ? null : round(database.statements / latencies.length, 2),
      topStatements: database.top?.slice(0, settings.feedWriters > 0 ? 4 : 2),
      ...(settings.feedWriters > 0 ? { writers: settings.feedWriters, batchCreates: writes } : {}),
    };
    log(
      `feed: p50 ${figures.p50} ms, p99 ${figures.p99} ms to the last byte (${parsed.p99} ms parsed), server mean ${server?.meanMs} ms, ` +
        `${figures.serviceCpuMsPerRequest} ms CPU, ${figures.meanEvents} events, ${figures.meanBodyBytes} bytes a page`,
    );
    return { report: figures };
  },
};

interface ServerDurations {
  sum: number;
  count: number;
  le10: number;
  le25: number;
}

/** The service's own duration of the feed's pages (http_request_duration_seconds of the route, status 200) from /metrics. */
async function serverDurations(service: Service): Promise<ServerDurations> {
  const text = await (await fetch(`${service.baseUrl}/metrics`)).text();
  const pick = (suffix: string, le?: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`http_request_duration_seconds_${suffix}{`) && line.includes('route="/api/v2/events"') && line.includes('status="200"'))
      .filter((line) => le === undefined || line.includes(`le="${le}"`))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return { sum: pick('sum'), count: pick('count'), le10: pick('bucket', '0.01'), le25: pick('bucket', '0.025') };
}

/**
 * A GC of this process between two timed pages (a young-generation one, a full one every 25 pages),
 * so that the bench's own garbage (each page's body as a string and its JSON.parse) is collected
 * while no page is in flight rather than during the next page's timed fetch: otherwise the slowest
 * pages, and so the p99, measure the bench's collections. Every page is still timed, from the
 * request to the body's last byte.
 */
let ownGc: ((options?: { type: 'minor' }) => void) | null = null;
function collectOwnGarbage(type: 'minor' | 'major'): void {
  if (ownGc === null) {
    v8.setFlagsFromString('--expose-gc');
    ownGc = runInNewContext('gc') as (options?: { type: 'minor' }) => void;
  }
  // gc({ type: 'major' }) makes a young-generation GC on Node 20: a full GC is gc() without options.
  if (type === 'minor') ownGc({ type });
  else ownGc();
}

/** BENCH_FEED_WRITERS: workers/feed-writers.worker.ts in its own thread; `stop` answers how many batch creates were made. */
async function startFeedWriters(service: Service, fx: Fixtures, writers: number): Promise<{ stop(): Promise<number> }> {
  const options: FeedWritersOptions = { port: service.port, key: fx.key, listIds: fx.listIds, batch: BATCH, writers, tag: `fw-${process.pid}-${Date.now()}` };
  const worker = startWorker('feed-writers.worker.ts', options);
  await new Promise<void>((resolve, reject) => {
    worker.once('online', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      const done = new Promise<number>((resolve, reject) => {
        worker.once('message', (message: FeedWritersDone) => resolve(message.writes));
        worker.once('error', reject);
      });
      worker.postMessage('stop' satisfies FeedWritersCommand);
      const writes = await done;
      await worker.terminate();
      return writes;
    },
  };
}
