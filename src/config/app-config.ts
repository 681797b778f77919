import { z } from 'zod';
import { DEFAULT_RETRY_DELAYS, parseRetryDelays } from '../common/retry-delays';

/**
 * Every setting an operator can give, checked once at start. A bad value stops the start with
 * one line naming the variable (see `loadConfig`). Documented in the README's configuration table.
 */
const booleanString = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

const positiveInt = z.coerce
  .number({ message: 'must be a whole number' })
  .int('must be a whole number')
  .positive('must be greater than 0');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional(),
  MIGRATE_ON_START: booleanString.default('true'),
  /** Connections of the one pg pool (the request path and Prisma share it). */
  DB_POOL_SIZE: positiveInt.default(10),
  /**
   * Before listening, open every pool connection with the registered statements prepared on each
   * and run the contacts pipeline until V8 has optimized it, so the first requests after a deploy
   * answer as fast as the rest. Off: a start that is faster and lighter on the database (tests,
   * development), with the first requests slower.
   */
  WARM_UP: booleanString.default('true'),
  /** Longest wait for a pool connection (new or free) before a request answers 503. */
  DB_CONNECT_TIMEOUT_MS: positiveInt.default(3000),
  /** PostgreSQL statement_timeout of every connection: a longer statement is cancelled (503). */
  DB_STATEMENT_TIMEOUT_MS: positiveInt.default(5000),
  /**
   * PostgreSQL lock_timeout of every connection: a request waiting this long for locks other
   * requests hold (the per-email locks of a write) answers 503 "being changed by other requests"
   * instead of waiting for the statement timeout. Unset: 60% of DB_STATEMENT_TIMEOUT_MS; 0: none.
   */
  DB_LOCK_TIMEOUT_MS: z.coerce.number({ message: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 or more').optional(),
  /** PostgreSQL idle_in_transaction_session_timeout: a transaction left idle this long is ended by the server. */
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: positiveInt.default(10000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** How long one Redis rate-limit decision may take before the in-process store answers instead. */
  REDIS_TIMEOUT_MS: positiveInt.default(250),
  /** Prefix of the rate-limit keys in Redis: instances sharing one prefix share the budgets. */
  REDIS_KEY_PREFIX: z.string().min(1).default('contact-sync:rate-limit:'),
  ORG_RATE_LIMIT: positiveInt.default(300),
  IP_RATE_LIMIT: positiveInt.default(1200),
  RATE_WINDOW_SECONDS: positiveInt.default(60),
  /** false: the socket address is the client; true: the left-most X-Forwarded-For entry; a number: hops to trust. */
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|\d+)$/, 'must be true, false or a number of proxy hops')
    .default('false')
    .transform((v): boolean | number => (v === 'true' ? true : v === 'false' ? false : Number(v))),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Port and folder of the embedded PostgreSQL used when DATABASE_URL is unset. */
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  EMBEDDED_PG_DIR: z.string().min(1).default('.data/postgres'),
  /** Longest time SIGTERM waits for in-flight requests before closing anyway. */
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10000),
  /** Longest time to receive a request's line and headers; then 408 REQUEST_TIMEOUT, connection closed. */
  HEADERS_TIMEOUT_MS: positiveInt.default(10000),
  /** Longest time to receive a body once the server starts reading it; then 408, connection closed. */
  BODY_TIMEOUT_MS: positiveInt.default(30000),
  /** Development and tests only: webhooks may use `http` and local or private addresses. */
  WEBHOOK_ALLOW_INSECURE: booleanString.default('false'),
  /** Seconds between a webhook's attempts, comma-separated (contract 16); jittered by up to 20%. */
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return DEFAULT_RETRY_DELAYS;
      const delays = parseRetryDelays(v);
      if (!delays) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated numbers of seconds, each above 0' });
        return z.NEVER;
      }
      return delays;
    }),
  /** How long an instance holds an attempt it took; one that dies leaves it to another after this. Above the 10 s attempt timeout. */
  WEBHOOK_LEASE_SECONDS: z.coerce.number({ message: 'must be a whole number' }).int('must be a whole number').min(11, 'must be at least 11 (the attempt timeout is 10 s)').default(30),
  /** How often an idle instance looks for new events and due attempts. */
  WEBHOOK_POLL_MS: positiveInt.default(200),
  /** Attempts one instance makes at the same time. */
  WEBHOOK_CONCURRENCY: positiveInt.default(256),
  /**
   * One webhook's share of an instance's WEBHOOK_CONCURRENCY: beyond it, a webhook takes only free
   * slots above a reserve kept for webhooks under their share, so that one webhook's backlog (a slow
   * or failing receiver) never holds up another's deliveries.
   */
  WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: positiveInt.default(64),
  /** A webhook without a single success for this long is disabled (contract 14: 24 hours). */
  WEBHOOK_DISABLE_AFTER_SECONDS: positiveInt.default(86400),
  /** false: this instance makes no deliveries (its API still manages webhooks). */
  WEBHOOK_DELIVERY: booleanString.default('true'),
  /** Days change events are kept (docs/events.md, "Retention"); fractions allowed (tests use seconds' worth). */
  EVENT_RETENTION_DAYS: z.coerce
    .number({ message: 'must be a number of days' })
    .refine((days) => Number.isFinite(days) && days > 0, 'must be a number of days greater than 0')
    .default(7),
  /** Most rows of one import file (contract 17); more: 413 PAYLOAD_TOO_LARGE, nothing kept. */
  IMPORT_MAX_ROWS: positiveInt.default(1_000_000),
  /** Most decoded bytes of one import file (gzip, deflate, br undone); more: 413, nothing kept. */
  IMPORT_MAX_BYTES: positiveInt.default(512 * 1024 * 1024),
  /** Imports of one organization running at once; the others wait queued in creation order. */
  IMPORT_CONCURRENCY: positiveInt.default(1),
  /** Days an import and its results are kept after it ends; fractions allowed (tests use seconds' worth). */
  IMPORT_RETENTION_DAYS: z.coerce
    .number({ message: 'must be a number of days' })
    .refine((days) => Number.isFinite(days) && days > 0, 'must be a number of days greater than 0')
    .default(7),
  /** How long an instance holds a running import between chunks; one that dies leaves it to another after this. */
  IMPORT_LEASE_SECONDS: positiveInt.default(30),
  /**
   * Rows applied per transaction of an import: each chunk pays a fixed cost (its round trips and its
   * commit's WAL flush) however few rows it holds, and the pipeline plans and renders it in one
   * stretch of the event loop.
   */
  IMPORT_CHUNK_ROWS: positiveInt.default(500),
  /** Milliseconds a running import waits after each chunk, leaving the database and the CPU to other requests. */
  IMPORT_CHUNK_PAUSE_MS: z.coerce.number({ message: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 or more').default(0),
  /** false: this instance processes no imports (its API still takes and reports them). */
  IMPORT_PROCESSING: booleanString.default('true'),
})
  // A lock wait must end before the statement timeout, or it is reported as the database failing.
  .superRefine((config, ctx) => {
    if (config.DB_LOCK_TIMEOUT_MS !== undefined && config.DB_LOCK_TIMEOUT_MS >= config.DB_STATEMENT_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['DB_LOCK_TIMEOUT_MS'],
        message: `must be below DB_STATEMENT_TIMEOUT_MS (${config.DB_STATEMENT_TIMEOUT_MS})`,
      });
    }
    // An import pausing past its lease would be taken over by another instance at every chunk.
    if (config.IMPORT_CHUNK_PAUSE_MS >= config.IMPORT_LEASE_SECONDS * 1000) {
      ctx.addIssue({
        code: 'custom',
        path: ['IMPORT_CHUNK_PAUSE_MS'],
        message: `must be below IMPORT_LEASE_SECONDS (${config.IMPORT_LEASE_SECONDS} s)`,
      });
    }
  })
  .transform((config) => ({ ...config, DB_LOCK_TIMEOUT_MS: config.DB_LOCK_TIMEOUT_MS ?? Math.floor(config.DB_STATEMENT_TIMEOUT_MS * 0.6) }));

export type AppConfig = z.infer<typeof envSchema>;

export class ConfigError extends Error {}

/** Parses the environment; throws a ConfigError whose message names the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  // An empty variable counts as unset, as in most twelve-factor services.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = envSchema.safeParse(present);
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = String(issue.path[0]);
    throw new ConfigError(`Invalid configuration: ${name}=${JSON.stringify(env[name])} ${issue.message}`);
  }
  return result.data;
}

/** DI token of the validated AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/** The time-outs every database connection of the service gets (the DB_* settings): the app's pool and the admin commands' pools. */
export function connectionTimeouts(config: AppConfig): {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  lockTimeoutMs: number | undefined;
  idleInTransactionTimeoutMs: number;
} {
  return {
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    lockTimeoutMs: config.DB_LOCK_TIMEOUT_MS,
    idleInTransactionTimeoutMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}
