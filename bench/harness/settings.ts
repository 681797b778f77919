/**
 * Every setting of the bench, read and checked once at start: a value that is not what its row of
 * bench/README.md says stops the bench with a message naming it. Scenarios read them from here,
 * never from process.env.
 */

export interface BenchSettings {
  /** Measured seconds of each load scenario (BENCH_SECONDS). */
  seconds: number;
  /** Warm-up seconds before each load scenario, not measured (BENCH_WARMUP_SECONDS). */
  warmupSeconds: number;
  /** Connections of the batch scenarios and their raw baselines (BENCH_BATCH_CONNECTIONS). */
  batchConnections: number;
  /** Connections of the single-contact scenarios and their raw baseline (BENCH_SINGLE_CONNECTIONS). */
  singleConnections: number;
  /** Connection counts of batchSweep (BENCH_SWEEP_CONNECTIONS). */
  sweepConnections: number[];
  /** Timed requests of the one-at-a-time scenarios; null: each scenario's own default (BENCH_REQUESTS). */
  requests: number | null;
  /** Scenarios to run (empty: all); `listing:<part>` entries narrow the listing's filters (BENCH_ONLY). */
  only: Set<string>;
  /** Parts of listing filter names to run (from `listing:<part>` entries of BENCH_ONLY). */
  listingOnly: string[];
  /** Events the feed scenario's organization holds before its pages are read (BENCH_FEED_EVENTS). */
  feedEvents: number;
  /** Contacts export1M seeds and exports (BENCH_EXPORT_CONTACTS). */
  exportContacts: number;
  /** Connections making batch creates while the feed is read (BENCH_FEED_WRITERS). */
  feedWriters: number;
  /** A file for one JSON line per timed feed page, or null (BENCH_FEED_TRACE). */
  feedTrace: string | null;
  /** Organization A's backlog in webhookFairness (BENCH_FAIRNESS_EVENTS). */
  fairnessEvents: number;
  /** Rows of the import1M scenario and its raw baseline (BENCH_IMPORT_ROWS). */
  importRows: number;
  /** Whether import1M uploads gzip (BENCH_IMPORT_GZIP=1). */
  importGzip: boolean;
  /** Contacts loaded before the existing-data scenarios (`--existing N`); 0 skips them. */
  existing: number;
  /** PostgreSQL shared_buffers of the embedded server with `--existing` (BENCH_SHARED_BUFFERS). */
  sharedBuffers: string;
  /** A folder keeping the embedded server and what was loaded, or null (BENCH_DATA_DIR). */
  dataDir: string | null;
  /** Skip `npm run build` (BENCH_SKIP_BUILD=1). */
  skipBuild: boolean;
  /** Extra node flags of the service process (BENCH_NODE_ARGS). */
  nodeArgs: string[];
  /** The service's LOG_LEVEL (BENCH_LOG_LEVEL). */
  logLevel: string;
  /** Tracing comparison instead of the scenarios (BENCH_TRACING=1), its sampling ratio, rounds and warm-up. */
  tracing: { on: boolean; ratio: number; rounds: number; warmupSeconds: number };
}

type Env = Record<string, string | undefined>;

class SettingError extends Error {}

function numberOf(env: Env, name: string, fallback: number, { min = 1, integer = true, max = Number.MAX_SAFE_INTEGER } = {}): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
    throw new SettingError(`${name}=${text}: expected ${integer ? 'an integer' : 'a number'} from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}`);
  }
  return value;
}

function flagOf(env: Env, name: string): boolean {
  const text = env[name];
  if (text === undefined || text === '' || text === '0') return false;
  if (text === '1') return true;
  throw new SettingError(`${name}=${text}: expected 1 or 0`);
}

/** The value after `--existing` in argv, 0 without it. */
function existingOf(argv: readonly string[]): number {
  const at = argv.indexOf('--existing');
  if (at < 0) return 0;
  const value = Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new SettingError(`--existing ${argv[at + 1] ?? ''}: expected a positive integer`);
  return value;
}

/** Every BENCH_* variable the bench reads: one row each in bench/README.md. */
export const SETTING_NAMES = [
  'BENCH_SECONDS',
  'BENCH_WARMUP_SECONDS',
  'BENCH_BATCH_CONNECTIONS',
  'BENCH_SINGLE_CONNECTIONS',
  'BENCH_SWEEP_CONNECTIONS',
  'BENCH_REQUESTS',
  'BENCH_ONLY',
  'BENCH_FEED_EVENTS',
  'BENCH_EXPORT_CONTACTS',
  'BENCH_FEED_WRITERS',
  'BENCH_FEED_TRACE',
  'BENCH_FAIRNESS_EVENTS',
  'BENCH_IMPORT_ROWS',
  'BENCH_IMPORT_GZIP',
  'BENCH_SHARED_BUFFERS',
  'BENCH_DATA_DIR',
  'BENCH_SKIP_BUILD',
  'BENCH_NODE_ARGS',
  'BENCH_LOG_LEVEL',
  'BENCH_TRACING',
  'BENCH_TRACING_RATIO',
  'BENCH_TRACING_ROUNDS',
  'BENCH_TRACING_WARMUP_SECONDS',
] as const;

export function readSettings(env: Env = process.env, argv: readonly string[] = process.argv): BenchSettings {
  // A misspelt or unknown name would otherwise be ignored and the run measure something else.
  const unknown = Object.keys(env).filter((name) => name.startsWith('BENCH_') && !(SETTING_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new SettingError(`${unknown.join(', ')}: not a setting of the bench (bench/README.md lists them)`);
  const entries = (env.BENCH_ONLY ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const listingOnly = entries.filter((entry) => entry.startsWith('listing:')).map((entry) => entry.slice('listing:'.length));
  const only = new Set(entries.map((entry) => (entry.startsWith('listing:') ? 'listing' : entry)));
  const sweep = (env.BENCH_SWEEP_CONNECTIONS ?? '1,2,4,8,16,32').split(',').map((part) => Number(part.trim()));
  if (sweep.length === 0 || sweep.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new SettingError(`BENCH_SWEEP_CONNECTIONS=${env.BENCH_SWEEP_CONNECTIONS}: expected comma-separated positive integers`);
  }
  const logLevel = env.BENCH_LOG_LEVEL ?? 'warn';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new SettingError(`BENCH_LOG_LEVEL=${logLevel}: expected fatal, error, warn, info, debug, trace or silent`);
  }
  const existing = existingOf(argv);
  if (env.BENCH_DATA_DIR && env.DATABASE_URL) throw new SettingError('BENCH_DATA_DIR keeps an embedded server: unset DATABASE_URL');
  return {
    seconds: numberOf(env, 'BENCH_SECONDS', 10),
    warmupSeconds: numberOf(env, 'BENCH_WARMUP_SECONDS', 2, { min: 0 }),
    batchConnections: numberOf(env, 'BENCH_BATCH_CONNECTIONS', 4),
    singleConnections: numberOf(env, 'BENCH_SINGLE_CONNECTIONS', 16),
    sweepConnections: sweep,
    requests: env.BENCH_REQUESTS ? numberOf(env, 'BENCH_REQUESTS', 0) : null,
    only,
    listingOnly,
    feedEvents: numberOf(env, 'BENCH_FEED_EVENTS', 50_000, { min: 0 }),
    exportContacts: numberOf(env, 'BENCH_EXPORT_CONTACTS', 1_000_000),
    feedWriters: numberOf(env, 'BENCH_FEED_WRITERS', 0, { min: 0 }),
    feedTrace: env.BENCH_FEED_TRACE || null,
    fairnessEvents: numberOf(env, 'BENCH_FAIRNESS_EVENTS', 15_000),
    importRows: numberOf(env, 'BENCH_IMPORT_ROWS', 1_000_000),
    importGzip: flagOf(env, 'BENCH_IMPORT_GZIP'),
    existing,
    sharedBuffers: env.BENCH_SHARED_BUFFERS || '1GB',
    dataDir: env.BENCH_DATA_DIR || null,
    skipBuild: flagOf(env, 'BENCH_SKIP_BUILD'),
    nodeArgs: (env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
    logLevel,
    tracing: {
      on: flagOf(env, 'BENCH_TRACING'),
      ratio: numberOf(env, 'BENCH_TRACING_RATIO', 0.1, { min: 0, max: 1, integer: false }),
      rounds: numberOf(env, 'BENCH_TRACING_ROUNDS', 3),
      warmupSeconds: numberOf(env, 'BENCH_TRACING_WARMUP_SECONDS', 30, { min: 0 }),
    },
  };
}

export { SettingError };
