import { count5xx, log, round, type Measured } from './harness/figures';
import { cannon, runHttp } from './harness/load';
import { startOtlpSink } from './harness/otlp-sink';
import { batchCreate, batchMixed, singleCreate, type NextRequest } from './harness/requests';
import type { BenchContext } from './harness/scenario';
import { startService, type Service } from './harness/service';

/**
 * BENCH_TRACING=1: what tracing costs. The scenarios of BENCH_ONLY (default singleCreate,batchCreate;
 * batchMixed too) against two services on one database, the plain one and one with OpenTelemetry on
 * at BENCH_TRACING_RATIO (`parentbased_traceidratio`) exporting OTLP/HTTP (protobuf, the spec's
 * default) to a sink in this process that reads and acknowledges every export. Runs alternate
 * plain/traced BENCH_TRACING_ROUNDS times so that a noisy neighbour hits both; the overhead is
 * 1 - median(traced) / median(plain), per scenario.
 * Before a scenario's rounds both services are warmed alike, BENCH_TRACING_WARMUP_SECONDS each of
 * the same load, in alternated slices (results discarded, 5xx still counted): the rounds then
 * measure the steady state of both arms, not V8 compiling the traced service's sampled path (run
 * by one request in ten at 0.1, so hot ten times later) inside them. A fresh process's warm-up is a
 * one-time cost, measured by the coldFirst5s scenario, not a per-request overhead.
 */
export async function tracingComparison(ctx: BenchContext): Promise<{ status5xx: number; report: unknown }> {
  const { settings, fx } = ctx;
  const plain = ctx.service;
  const { ratio, rounds, warmupSeconds } = settings.tracing;
  const names = settings.only.size > 0 ? [...settings.only] : ['singleCreate', 'batchCreate'];
  const { server, port: sinkPort, stats: sink } = await startOtlpSink();
  const traced = await startService(settings, ctx.url, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}`,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(ratio),
  });
  const loads: Record<string, { connections: number; next: NextRequest }> = {
    singleCreate: { connections: settings.singleConnections, next: singleCreate(fx) },
    batchCreate: { connections: settings.batchConnections, next: batchCreate(fx) },
    batchMixed: { connections: settings.batchConnections, next: batchMixed(fx) },
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const scenarios: Record<string, unknown> = {};
  let status5xx = 0;
  try {
    for (const name of names) {
      const chosen = loads[name];
      if (!chosen) throw new Error(`BENCH_TRACING: no scenario ${name} (use ${Object.keys(loads).join(', ')})`);
      // Steady state first, for both arms alike: slices of at most 10 s, alternated.
      const slices = Math.ceil(warmupSeconds / 10);
      for (let slice = 0; slice < slices; slice++) {
        for (const service of [plain, traced]) {
          log(`${name}-tracing warm-up ${slice + 1}/${slices} (${service === plain ? 'off' : 'on'})`);
          const warm = await cannon(service, fx, chosen.connections, warmupSeconds / slices, chosen.next);
          status5xx += count5xx(warm.statuses);
        }
      }
      const runs: Record<'off' | 'on', Measured[]> = { off: [], on: [] };
      for (let turn = 0; turn < rounds; turn++) {
        for (const [mode, service] of [
          ['off', plain],
          ['on', traced],
        ] as Array<['off' | 'on', Service]>) {
          const run = await runHttp(service, ctx.stats, fx, `${name}-tracing-${mode}`, chosen.connections, settings.seconds, settings.warmupSeconds, chosen.next);
          status5xx += run.status5xx;
          runs[mode].push(run);
        }
      }
      const rate = (mode: 'off' | 'on') => median(runs[mode].map((r) => r.perSecond));
      const cpu = (mode: 'off' | 'on') => median(runs[mode].map((r) => r.serviceCpuMsPerRequest ?? NaN));
      const arm = (mode: 'off' | 'on') => ({
        perSecond: runs[mode].map((r) => r.perSecond),
        p99: runs[mode].map((r) => r.p99),
        cpuMsPerRequest: runs[mode].map((r) => r.serviceCpuMsPerRequest),
      });
      scenarios[name] = {
        unit: runs.off[0].unit,
        off: arm('off'),
        on: arm('on'),
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
    report: { sampler: 'parentbased_traceidratio', ratio, rounds, seconds: settings.seconds, warmupSecondsEach: warmupSeconds, sink, scenarios },
  };
}
