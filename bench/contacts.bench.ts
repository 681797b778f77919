/**
 * Throughput of the contacts pipeline, measured against a raw baseline in the same run.
 *
 *   npm run bench            (embedded PostgreSQL unless DATABASE_URL is set)
 *
 * Service: POST /api/v2/contacts/batch with 50 new contacts (2 lists, 3 fields each), BENCH_CONCURRENCY
 * requests in flight over keep-alive HTTP, the real app (createApp) in this process.
 * Baseline: the same rows written with node `pg` directly — one transaction per 50 rows with one
 * `INSERT ... ON CONFLICT DO UPDATE` for contacts and one for memberships, same concurrency.
 * Prints contacts/s for both, their ratio, request latency percentiles and the process's peak RSS.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Pool } from 'pg';
import { createApp } from '../src/app.factory';
import { generateApiKey } from '../src/auth/api-key';
import { loadConfig } from '../src/config/app-config';
import { databaseUrlOn, ensureDatabase, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { applyMigrations } from '../src/database/migrations';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const BATCH_SIZE = 50;

let peakRss = 0;
const sampleRss = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));

async function main(): Promise<void> {
  const { serverUrl, stop } = await startServer();
  const database = `contact_sync_bench_${Date.now()}`;
  await ensureDatabase(serverUrl, database);
  const url = databaseUrlOn(serverUrl, database);
  await applyMigrations(url);

  const setup = new Client({ connectionString: url });
  await setup.connect();
  const org = await insertOne(setup, `INSERT INTO organizations (id, name) VALUES ($1, 'Bench') RETURNING id`, [randomUUID()]);
  const listIds = [randomUUID(), randomUUID()];
  for (const id of listIds) {
    await setup.query(`INSERT INTO lists (id, organization_id, name) VALUES ($1, $2, 'L')`, [id, org]);
  }
  await setup.query(
    `INSERT INTO custom_fields (id, organization_id, key, type) VALUES ($1, $2, 'plan', 'text')`,
    [randomUUID(), org],
  );
  const { key, prefix, keyHash } = generateApiKey();
  await setup.query(`INSERT INTO api_keys (id, organization_id, prefix, key_hash) VALUES ($1, $2, $3, $4)`, [
    randomUUID(),
    org,
    prefix,
    keyHash,
  ]);
  await setup.end();

  // --- Service
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: url,
    MIGRATE_ON_START: 'false',
    LOG_LEVEL: 'silent',
    ORG_RATE_LIMIT: '1000000',
    IP_RATE_LIMIT: '1000000',
  });
  const app = await createApp({ ...config, DATABASE_URL: url });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  let failures = 0;
  const rssTimer = setInterval(sampleRss, 50);

  const serviceStart = process.hrtime.bigint();
  await runConcurrently(BATCHES, CONCURRENCY, async (i) => {
    const body = JSON.stringify({
      contacts: Array.from({ length: BATCH_SIZE }, (_, j) => ({
        email: `svc-${i}-${j}@bench.example`,
        listIds,
        fields: { firstName: 'Ada', lastName: 'Lovelace', plan: 'pro' },
      })),
    });
    const started = process.hrtime.bigint();
    const { status, text } = await post(agent, port, '/api/v2/contacts/batch', key, body);
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    const summary = status === 200 ? (JSON.parse(text) as { summary: { created: number } }).summary : undefined;
    if (summary?.created !== BATCH_SIZE) failures++;
  });
  const serviceSeconds = Number(process.hrtime.bigint() - serviceStart) / 1e9;
  clearInterval(rssTimer);
  agent.destroy();
  await app.close();

  // --- Raw baseline
  const pool = new Pool({ connectionString: url, max: CONCURRENCY });
  const rawStart = process.hrtime.bigint();
  await runConcurrently(BATCHES, CONCURRENCY, async (i) => {
    const client = await pool.connect();
    try {
      const ids = Array.from({ length: BATCH_SIZE }, () => randomUUID());
      const emails = ids.map((_, j) => `raw-${i}-${j}@bench.example`);
      await client.query('BEGIN');
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO contacts (id, organization_id, email, first_name, last_name, custom_fields, updated_at)
         SELECT id, $2, email, 'Ada', 'Lovelace', '{"plan":"pro"}'::jsonb, now() FROM unnest($1::text[], $3::text[]) AS t(id, email)
         ON CONFLICT (organization_id, email) DO UPDATE SET first_name = EXCLUDED.first_name
         RETURNING id`,
        [ids, org, emails],
      );
      const contactIds = rows.flatMap((r) => listIds.map(() => r.id));
      const lists = rows.flatMap(() => listIds);
      await client.query(
        `INSERT INTO list_memberships (contact_id, list_id) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
        [contactIds, lists],
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });
  const rawSeconds = Number(process.hrtime.bigint() - rawStart) / 1e9;
  await pool.end();

  const contacts = BATCHES * BATCH_SIZE;
  const serviceRate = contacts / serviceSeconds;
  const rawRate = contacts / rawSeconds;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(1);
  console.log(
    [
      `contacts per run: ${contacts} (${BATCHES} batches of ${BATCH_SIZE}, ${CONCURRENCY} in flight)`,
      `service:  ${serviceRate.toFixed(0)} contacts/s (${serviceSeconds.toFixed(2)} s), failed batches: ${failures}`,
      `raw pg:   ${rawRate.toFixed(0)} contacts/s (${rawSeconds.toFixed(2)} s)`,
      `ratio service/raw: ${(serviceRate / rawRate).toFixed(2)}`,
      `batch latency ms: p50 ${pct(50)}, p95 ${pct(95)}, p99 ${pct(99)}, max ${latencies[latencies.length - 1].toFixed(1)}`,
      `peak RSS of the service process: ${(peakRss / 1024 / 1024).toFixed(0)} MiB`,
    ].join('\n'),
  );

  const drop = new Client({ connectionString: serverUrl });
  await drop.connect();
  await drop.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await drop.end();
  await stop();
  if (failures > 0) process.exitCode = 1;
}

async function startServer(): Promise<{ serverUrl: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) {
    return { serverUrl: databaseUrlOn(process.env.DATABASE_URL, 'postgres'), stop: () => Promise.resolve() };
  }
  const server = await startEmbeddedPostgres({ dataDir: `.data/bench-${process.pid}`, port: 54400 + (process.pid % 500), persistent: false });
  return { serverUrl: server.serverUrl, stop: () => server.stop() };
}

async function insertOne(client: Client, sql: string, params: unknown[]): Promise<string> {
  const { rows } = await client.query<{ id: string }>(sql, params);
  return rows[0].id;
}

async function runConcurrently(total: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await work(next++);
    }),
  );
}

function post(agent: http.Agent, port: number, path: string, key: string, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
