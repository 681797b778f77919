import autocannon from 'autocannon';
import { count5xx, log, percentiles, round, type Measured } from './figures';
import type { Fixtures } from './fixtures';
import type { NextRequest } from './requests';
import type { Service } from './service';
import type { StatementStats } from './statement-stats';

/** One closed-loop load run's raw figures: every response's time and status. */
export interface LoadRun {
  latencies: number[];
  statuses: Record<string, number>;
  contactsPerRequest: number;
  seconds: number;
}

/**
 * `connections` keep-alive connections from this process (autocannon), each sending its next
 * request when the last one is answered, for `seconds`.
 */
export async function cannon(service: Service, fx: Fixtures, connections: number, seconds: number, next: NextRequest): Promise<LoadRun> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let contactsPerRequest = 1;
  const started = Date.now();
  const options: autocannon.Options = {
    url: service.baseUrl,
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

/**
 * A load scenario: `warmupSeconds` of the same load (not measured), then `seconds` measured with
 * the database's statements and transactions, the service's RSS (sampled every 200 ms) and CPU.
 */
export async function runHttp(
  service: Service,
  stats: StatementStats,
  fx: Fixtures,
  name: string,
  connections: number,
  seconds: number,
  warmupSeconds: number,
  next: NextRequest,
): Promise<Measured> {
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
  return {
    name,
    unit: run.contactsPerRequest > 1 ? 'contacts' : 'requests',
    perSecond: round((requests * run.contactsPerRequest) / run.seconds),
    requests,
    ...percentiles(run.latencies),
    statementsPerRequest: counted.statements === null ? null : round(counted.statements / requests, 2),
    transactionsPerRequest: round(counted.transactions / requests, 2),
    topStatements: counted.top,
    peakRssMiB: peakRss ? round(peakRss / 1024, 1) : null,
    serviceCpuMsPerRequest: cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1000) / requests, 3),
    status5xx: count5xx(run.statuses),
    statuses: run.statuses,
  };
}
