/** Progress lines go to stderr; stdout carries only the JSON line. */
export const log = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

export const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** p50/p95/p99 (ms, 2 decimals) of the latencies: the value at that rank of the sorted list. */
export function percentiles(latencies: readonly number[]): { p50: number; p95: number; p99: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0, 2);
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** How many of the statuses (status → count) are 5xx. */
export const count5xx = (statuses: Record<string, number>): number =>
  Object.entries(statuses)
    .filter(([status]) => status.startsWith('5'))
    .reduce((sum, [, n]) => sum + n, 0);

/** One measured run: what the JSON line lists under `scenarios` (and `existing.scenarios`). */
export interface Measured {
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
