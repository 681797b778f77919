import { round, type Measured } from '../harness/figures';
import { runHttp } from '../harness/load';
import { batchCreate } from '../harness/requests';
import type { Scenario } from '../harness/scenario';

/**
 * batchCreate at rising connection counts (BENCH_SWEEP_CONNECTIONS), each for half of BENCH_SECONDS
 * after 1 s of warm-up: where throughput saturates and whether it holds past that. Saturation = the
 * fewest connections reaching 90% of the peak rate; `halfLoad` = p99 at half of them (goal ≤ 50 ms);
 * `throughputHolds` = the rate at the most connections is still ≥ 80% of the peak (no collapse).
 * The levels (batchSweep-cN) are not listed under `scenarios`; their 5xx count.
 */
export const batchSweep: Scenario = {
  name: 'batchSweep',
  phases: ['empty'],
  run: async (ctx) => {
    const seconds = Math.max(1, Math.round(ctx.settings.seconds / 2));
    const levels: Measured[] = [];
    for (const connections of ctx.settings.sweepConnections) {
      levels.push(await runHttp(ctx.service, ctx.stats, ctx.fx, `batchSweep-c${connections}`, connections, seconds, 1, batchCreate(ctx.fx)));
    }
    const points = levels.map((level, i) => ({
      connections: ctx.settings.sweepConnections[i],
      contactsPerSecond: level.perSecond,
      p50: level.p50,
      p99: level.p99,
      status5xx: level.status5xx,
    }));
    const peak = Math.max(...points.map((p) => p.contactsPerSecond));
    const saturating = points.find((p) => p.contactsPerSecond >= 0.9 * peak) ?? points[0];
    // Half the saturating load: the level with half its connections (or the nearest below).
    const half = [...points].reverse().find((p) => p.connections <= Math.max(1, saturating.connections / 2)) ?? points[0];
    const last = points[points.length - 1];
    return {
      unlisted: levels,
      report: {
        seconds,
        points,
        peakContactsPerSecond: peak,
        saturatingConnections: saturating.connections,
        halfLoad: { connections: half.connections, contactsPerSecond: half.contactsPerSecond, p99: half.p99 },
        p99AtHalfLoadMet: half.p99 <= 50,
        beyondSaturation: { connections: last.connections, ratioToPeak: round(last.contactsPerSecond / peak, 3), p99: last.p99 },
        throughputHolds: last.contactsPerSecond >= 0.8 * peak,
      },
    };
  },
};
