/**
 * Tracing probe, for differences too small for the bench's alternated runs: several services (`node dist/main.js`) on
 * one database of the machine's PostgreSQL (PROBE_SERVER, default postgres://postgres@127.0.0.1:5432;
 * database PROBE_DB), started side by side and driven AT THE SAME TIME with single creates, so
 * that every service sees the same machine in every round; each round reads each service's CPU
 * (/proc utime + stime) and reports CPU per request and its ratio to the first service.
 *
 *   PROBE_SERVICES='[{"name":"plain"},{"name":"r01","env":{"OTEL_EXPORTER_OTLP_ENDPOINT":"$SINK",
 *     "OTEL_TRACES_SAMPLER":"parentbased_traceidratio","OTEL_TRACES_SAMPLER_ARG":"0.1"},"args":["--trace-gc"]}]'
 *   npx ts-node --transpile-only bench/tracing-probe.ts
 *
 * `dir` runs that service's `dist/main.js` from another checkout (e.g. a worktree of main, for
 * an A/B in one run; its build must accept the same database schema).
 * `$SINK` is an OTLP/HTTP sink in this process; `sampledWarmup: n` sends n requests with a sampled
 * `traceparent` after the warm-up; each service's stdout goes to PROBE_OUT/<name>.out (for
 * --trace-gc, --trace-opt; with `--trace-gc-nvp` in a service's args the result also gives its
 * allocation per request over the rounds, `gc`). PROBE_ROUNDS (5), PROBE_PER_ROUND (500 requests), PROBE_WARMUP (1500),
 * PROBE_CONNECTIONS (4 per service). PROBE_WRAP runs each service under a wrapper (e.g.
 * "valgrind --tool=callgrind --instr-atstart=no --smc-check=all-non-file"), and PROBE_PAUSE_FILE
 * makes the probe wait after the warm-up until that file exists (switch callgrind on meanwhile;
 * count the requests of a window from each service's /metrics).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort } from './harness/free-port';
import { startOtlpSink } from './harness/otlp-sink';
import { parseAdminCommand } from '../src/admin/admin-arguments';
import { closeAdminClient, executeAdminCommand, openAdminClient } from '../src/admin/admin.commands';
import { databaseUrlOn, ensureDatabase } from '../src/database/embedded-postgres';
import { applyMigrations } from '../src/database/migrations';

const DB = process.env.PROBE_DB ?? 'contact_sync_tracing_probe';
const SERVER = databaseUrlOn(process.env.PROBE_SERVER ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'postgres');
const OUT = process.env.PROBE_OUT ?? '/tmp';
const FX = path.join(OUT, `tracing-probe-${DB}.json`);
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.PROBE_PER_ROUND ?? 500);
const WARMUP = Number(process.env.PROBE_WARMUP ?? 1500);
const CONNS = Number(process.env.PROBE_CONNECTIONS ?? 4);
const log = (m: string) => process.stderr.write(`[probe] ${m}\n`);

interface Fx { key: string; listIds: string[] }

async function fixtures(url: string): Promise<Fx> {
  if (existsSync(FX)) return JSON.parse(readFileSync(FX, 'utf8')) as Fx;
  const prisma = openAdminClient(url);
  const admin = async (argv: string[]) => {
    const command = parseAdminCommand(argv);
    if (command.command === 'migrate') throw new Error('probe fixtures never migrate');
    return executeAdminCommand(prisma, command);
  };
  const org = (await admin(['org', 'create', '--name', 'Probe'])) as { id: string };
  const key = (await admin(['key', 'create', '--org', org.id])) as { key: string };
  const a = (await admin(['list', 'create', '--org', org.id, '--name', 'Newsletter'])) as { id: string };
  const b = (await admin(['list', 'create', '--org', org.id, '--name', 'Customers'])) as { id: string };
  await admin(['field', 'create', '--org', org.id, '--key', 'plan', '--type', 'select', '--options', 'free,pro']);
  await admin(['field', 'create', '--org', org.id, '--key', 'seats', '--type', 'number']);
  await closeAdminClient(prisma);
  const fx = { key: key.key, listIds: [a.id, b.id] };
  writeFileSync(FX, JSON.stringify(fx));
  return fx;
}

interface Svc { name: string; port: number; child: ChildProcess; out: string }

/**
 * With `--trace-gc-nvp` in a service's args, V8 writes one line per collection to its stdout with
 * the bytes allocated since the previous one (`allocated=`) and promoted to the old generation
 * (`promoted=`): summed over the lines written during the rounds (the file's size read at their
 * start and end), that is the allocation per request, exact but for the collections at the two
 * edges (half a young generation each; divide by enough requests).
 */
function gcOf(file: string, from: number, to: number): { allocated: number; promoted: number; scavenges: number; markCompacts: number } | null {
  const text = readFileSync(file).subarray(from, to).toString('utf8');
  let allocated = 0;
  let promoted = 0;
  let scavenges = 0;
  let markCompacts = 0;
  let lines = 0;
  for (const line of text.split('\n')) {
    const a = / allocated=(\d+)/.exec(line);
    if (!a) continue;
    lines++;
    allocated += Number(a[1]);
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    const kind = / gc=(\w+)/.exec(line)?.[1];
    if (kind === 's') scavenges++;
    else if (kind === 'mc' || kind === 'ms') markCompacts++;
  }
  return lines === 0 ? null : { allocated, promoted, scavenges, markCompacts };
}
const sizeOf = (file: string) => statSync(file).size;

function cpuOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(parts[11]) + Number(parts[12])) / 100;
}
function rssOf(pid: number): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
}
function mainThreadCpu(pid: number): number {
  const f = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(parts[11]) + Number(parts[12])) / 100;
}

async function start(url: string, sink: number, s: { name: string; env?: Record<string, string>; args?: string[]; dir?: string }): Promise<Svc> {
  const port = await freePort();
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([n]) => !n.startsWith('OTEL_')));
  const env: Record<string, string | undefined> = {
    ...inherited,
    DATABASE_URL: url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ORG_RATE_LIMIT: '100000000',
    IP_RATE_LIMIT: '100000000',
    REDIS_URL: '',
    DB_CONNECT_TIMEOUT_MS: '60000',
    DB_STATEMENT_TIMEOUT_MS: '120000',
    ...Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, v.replace('$SINK', `http://127.0.0.1:${sink}`)])),
  };
  const [cmd, ...pre] = process.env.PROBE_WRAP ? process.env.PROBE_WRAP.split(' ') : [process.execPath];
  const out = path.join(OUT, `${s.name}.out`);
  const child = spawn(cmd, [...pre, ...(process.env.PROBE_WRAP ? [process.execPath] : []), ...(s.args ?? []), 'dist/main.js'], {
    env,
    cwd: s.dir,
    stdio: ['ignore', openSync(out, 'w'), 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${s.name} exited`);
    const ok = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  log(`${s.name} ready pid ${child.pid} port ${port}`);
  return { name: s.name, port, child, out };
}

let seq = 0;
async function drive(svc: Svc, fx: Fx, n: number, conns: number, headers: Record<string, string> = {}): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: conns });
  let next = 0;
  let errors = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const body = JSON.stringify({ email: `p-${process.pid}-${++seq}@probe.example.com`, listIds: fx.listIds, fields: { firstName: 'Ada', city: 'Oslo', plan: 'pro', seats: 3 }, overwrite: false });
      const req = http.request(
        { agent, host: '127.0.0.1', port: svc.port, method: 'POST', path: '/api/v2/contacts', headers: { authorization: `Bearer ${fx.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } },
        (res) => {
          if (res.statusCode !== 201) errors++;
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: conns }, async () => {
      while (next < n) {
        next++;
        await one();
      }
    }),
  );
  agent.destroy();
  return errors;
}

async function main() {
  const url = databaseUrlOn(SERVER, DB);
  await ensureDatabase(SERVER, DB);
  await applyMigrations(url);
  const fx = await fixtures(url);
  const { server: sink, port: sinkPort, stats: sinkStats } = await startOtlpSink();
  const config = JSON.parse(process.env.PROBE_SERVICES ?? '[{"name":"plain"}]') as Array<{ name: string; env?: Record<string, string>; args?: string[]; dir?: string; sampledWarmup?: number }>;
  const svcs: Svc[] = [];
  try {
    for (const s of config) svcs.push(await start(url, sinkPort, s));
    log(`warm-up ${WARMUP}`);
    await Promise.all(svcs.map((s) => drive(s, fx, WARMUP, CONNS)));
    for (const [i, s] of config.entries()) {
      if (s.sampledWarmup) {
        // requests with a sampled traceparent
        for (let k = 0; k < s.sampledWarmup; k++) {
          const tid = [...Array(32)].map(() => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');
          await drive(svcs[i], fx, 1, 1, { traceparent: `00-${tid}-00f067aa0ba902b7-01` });
        }
      }
    }
    if (process.env.PROBE_PAUSE_FILE) {
      writeFileSync(process.env.PROBE_PAUSE_FILE + '.ready', svcs.map((s) => s.child.pid).join(' '));
      log(`paused: waiting for ${process.env.PROBE_PAUSE_FILE}`);
      while (!existsSync(process.env.PROBE_PAUSE_FILE)) await new Promise((r) => setTimeout(r, 500));
    }
    const perRound: number[][] = svcs.map(() => []);
    const mainShare: number[][] = svcs.map(() => []);
    const gcFrom = svcs.map((s) => sizeOf(s.out));
    for (let round = 0; round < ROUNDS; round++) {
      const before = svcs.map((s) => [cpuOf(s.child.pid!), mainThreadCpu(s.child.pid!)]);
      const t0 = Date.now();
      await Promise.all(svcs.map((s) => drive(s, fx, PER_ROUND, CONNS)));
      const after = svcs.map((s) => [cpuOf(s.child.pid!), mainThreadCpu(s.child.pid!)]);
      svcs.forEach((_, i) => {
        perRound[i].push(((after[i][0] - before[i][0]) * 1000) / PER_ROUND);
        mainShare[i].push((after[i][1] - before[i][1]) / (after[i][0] - before[i][0]));
      });
      log(`round ${round}: ${((Date.now() - t0) / 1000).toFixed(1)} s ` + svcs.map((s, i) => `${s.name} ${perRound[i][round].toFixed(3)} rss ${rssOf(s.child.pid!)}`).join(', '));
    }
    const gcTo = svcs.map((s) => sizeOf(s.out));
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
    const requests = ROUNDS * PER_ROUND;
    const out = svcs.map((s, i) => ({
      name: s.name,
      msPerRequest: perRound[i].map((v) => +v.toFixed(3)),
      median: +median(perRound[i]).toFixed(3),
      mainThreadShare: +median(mainShare[i]).toFixed(3),
      vsFirst: i === 0 ? null : +(median(perRound[i].map((v, r) => v / perRound[0][r] - 1)) * 100).toFixed(1),
      eachVsFirst: i === 0 ? null : perRound[i].map((v, r) => Math.round((v / perRound[0][r] - 1) * 100)),
      gc: ((gc) =>
        gc && {
          kibAllocatedPerRequest: +(gc.allocated / 1024 / requests).toFixed(2),
          kibPromotedPerRequest: +(gc.promoted / 1024 / requests).toFixed(2),
          scavenges: gc.scavenges,
          markCompacts: gc.markCompacts,
        })(gcOf(s.out, gcFrom[i], gcTo[i])),
    }));
    console.log(JSON.stringify({ sink: sinkStats, out }, null, 1));
    if (process.env.PROBE_DONE_FILE) {
      writeFileSync(process.env.PROBE_DONE_FILE + '.ready', '1');
      while (!existsSync(process.env.PROBE_DONE_FILE)) await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    for (const s of svcs) s.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    sink.close();
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
