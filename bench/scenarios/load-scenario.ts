import { runHttp } from '../harness/load';
import type { NextRequest } from '../harness/requests';
import type { BenchContext, Phase, Scenario } from '../harness/scenario';
import type { BenchSettings } from '../harness/settings';

/**
 * A closed-loop load scenario (autocannon: each connection sends its next request when the last one
 * is answered) of BENCH_WARMUP_SECONDS then BENCH_SECONDS, listed under `scenarios`.
 */
export function loadScenario(
  name: string,
  phases: readonly Phase[],
  connections: (settings: BenchSettings) => number,
  next: (ctx: BenchContext) => Promise<NextRequest> | NextRequest,
): Scenario {
  return {
    name,
    phases,
    run: async (ctx) => {
      const { settings } = ctx;
      const measured = await runHttp(ctx.service, ctx.stats, ctx.fx, name, connections(settings), settings.seconds, settings.warmupSeconds, await next(ctx));
      return { listed: [measured] };
    },
  };
}
