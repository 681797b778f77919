import { existsSync } from 'node:fs';
import path from 'node:path';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Pool, type PoolClient, type QueryResultRow } from 'pg';
import type { RequestError } from '../errors/request-error';
import { classifyDatabaseError, faultCause, isConnectionLost, isLockTimeout, serviceUnavailable } from './database-errors';
import { FaultLog } from './fault-log';
import { HealthConnection } from './health-connection';
import { bind, type RegisteredStatement, runIn, type SqlClient, type Statement } from './statements';

export const DATABASE_OPTIONS = Symbol('DATABASE_OPTIONS');

/** How stale the request path's view of the embedded data folder may be. */
const DATA_FOLDER_CHECK_MS = 1000;

interface TransactionState {
  commitInFlight: boolean;
  /** Set when the client's connection died: the client is destroyed, never reused. */
  lost: Error | undefined;
}

/** See the constructor: the loss is handled by whoever holds the client. */
const ignoreHandledElsewhere = (): void => undefined;

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** One round trip (simple protocol, no parameters): opens the transaction and assigns its id. */
const BEGIN_WITH_XID = 'BEGIN; SELECT pg_current_xact_id()::text AS xid';
/** BEGIN_WITH_XID, and the transaction's statements run with their generic plans (RegisteredStatement.plan). */
const BEGIN_GENERIC_WITH_XID = 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan; SELECT pg_current_xact_id()::text AS xid';

export interface DatabaseOptions {
  url: string;
  poolSize: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  /** lock_timeout (0: none); below statementTimeoutMs, so a lock wait is told from a database fault (55P03). */
  lockTimeoutMs?: number;
  idleInTransactionTimeoutMs: number;
  /** The embedded server's data folder: readiness also checks that it still exists. */
  dataDir?: string;
}

export function createPool(options: DatabaseOptions): Pool {
  return new Pool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    // Server-side limits, sent as start-up parameters (no extra round trip per connection).
    statement_timeout: options.statementTimeoutMs,
    lock_timeout: options.lockTimeoutMs,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs,
    // Prepared statements save the parse; each call is still planned with its own arrays. A
    // generic plan cannot see how many rows unnest($n) yields and chose a scan of all contacts
    // for the overwrite UPDATE (97 ms instead of ~4 ms a batch in the bench). The contacts write
    // statement sets generic plans for its own foreign-key checks (WRITE_CONTACTS, contacts.statements.ts).
    options: '-c plan_cache_mode=force_custom_plan',
    // Client-side bound for a server that stopped answering without closing the socket.
    query_timeout: options.statementTimeoutMs + 2_000,
    keepAlive: true,
  });
}

/**
 * The SQL of the service (registered statements, statements.ts) and its one transaction helper, on
 * the pg Pool that Prisma's adapter also uses (one pool, one connection budget). Faults are handled here once: a checked-out client always has an
 * 'error' listener (a backend terminated while the client waits in a transaction would otherwise
 * crash the process); a client whose connection died is destroyed (`release(err)`), never returned
 * or lost; failures are classified once (503 before COMMIT, unknown outcome during it).
 */
@Injectable()
export class Database implements OnModuleDestroy {
  readonly pool: Pool;
  private readonly logger = new Logger('Database');
  /** Faults that answer 503: one line per cause per second, with a count (no stack per request). */
  private readonly faults = new FaultLog();
  private dataFolderCheckedAt = 0;
  private dataFolderFound = true;
  /** Readiness asks on its own connection, never queued behind requests waiting for the pool. */
  private readonly health: HealthConnection;
  /** Connections open now, so that closing can wait until each has closed (onModuleDestroy). */
  private readonly openConnections = new Set<PoolClient>();

  constructor(@Inject(DATABASE_OPTIONS) readonly options: DatabaseOptions) {
    this.pool = createPool(options);
    this.health = new HealthConnection({ url: options.url, connectTimeoutMs: options.connectTimeoutMs });
    // An idle connection dropped by the server (restart, failover): the pool replaces it.
    this.pool.on('error', (error) => this.faults.report(faultCause(error), `idle connection lost: ${error.message}`));
    // Every connection keeps one 'error' listener of its own for life. Whoever holds a checked-out
    // client adds theirs (this class, adapter-pg, pg-pool's query), but pg emits 'error' with no
    // active query, and any moment a checked-out client has no listener (a driver's gap, a second
    // error after the first listener went) would crash the process with "Unhandled error".
    // The holder still handles the loss; this one only keeps the emit from throwing.
    this.pool.on('connect', (client) => client.on('error', ignoreHandledElsewhere));
    // From connected to closed (pg-pool emits 'remove' once a connection's end has completed).
    this.pool.on('connect', (client) => this.openConnections.add(client));
    this.pool.on('remove', (client) => this.openConnections.delete(client));
  }

  /** One statement outside a transaction. */
  async query<R extends QueryResultRow = QueryResultRow>(statement: string | Statement, values?: unknown[]): Promise<R[]> {
    const config = typeof statement === 'string' ? { text: statement, values } : statement;
    return this.withClient(async (client) => (await client.query<R>(config)).rows, false);
  }

  /** A registered statement (statements.ts) outside a transaction; one whose `plan` is 'generic' in a transaction of its own. */
  run<R extends QueryResultRow>(statement: RegisteredStatement<R>, values: unknown[]): Promise<R[]> {
    if (statement.plan === 'generic') return this.transaction((tx) => runIn(tx, statement, values), { genericPlans: true });
    return this.query<R>(bind(statement, values));
  }

  /**
   * BEGIN, `work`, COMMIT on one client; ROLLBACK (or the client's destruction) on any failure.
   * BEGIN also fetches the transaction id (same round trip), so that when COMMIT fails its outcome
   * is asked of the database (pg_xact_status) instead of guessed: committed → the result stands;
   * aborted → 503; unknowable (database unreachable) → the error stays (500, outcome unknown).
   * `genericPlans`: its statements, and the foreign-key checks they trigger, run with their generic
   * plans (plan_cache_mode, for this transaction only).
   */
  async transaction<T>(work: (tx: SqlClient) => Promise<T>, options: { genericPlans?: boolean } = {}): Promise<T> {
    return this.withClient(async (client, state) => {
      const begun = (await client.query(options.genericPlans ? BEGIN_GENERIC_WITH_XID : BEGIN_WITH_XID)) as unknown as Array<{ rows: Array<{ xid: string }> }>;
      const xid = begun[begun.length - 1].rows[0].xid;
      let committed = false;
      try {
        const result = await work(client);
        // The connection died after the last statement: COMMIT cannot be sent, nothing was committed.
        if (state.lost) throw state.lost;
        state.commitInFlight = true;
        try {
          await client.query('COMMIT');
        } catch (error) {
          state.lost ??= asError(error);
          const outcome = await this.commitOutcome(xid);
          if (outcome === 'committed') return result;
          if (outcome === 'aborted') state.commitInFlight = false; // known: nothing was written (503)
          throw error;
        }
        committed = true;
        return result;
      } finally {
        if (!committed && !state.commitInFlight && !state.lost) {
          // A failed ROLLBACK means the connection is gone: the client is destroyed below.
          await client.query('ROLLBACK').catch((error: unknown) => {
            state.lost = asError(error);
          });
        }
      }
    }, true);
  }

  /** What became of a transaction whose COMMIT failed, asked on another connection (bounded). */
  private async commitOutcome(xid: string): Promise<'committed' | 'aborted' | 'unknown'> {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const [row] = await this.query<{ status: string | null }>('SELECT pg_xact_status($1::xid8) AS status', [xid]);
        if (row.status === 'committed') return 'committed';
        if (row.status === 'aborted') return 'aborted';
        // 'in progress': the terminated backend is still rolling back.
      } catch {
        return 'unknown';
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return 'unknown';
  }

  private async withClient<T>(
    work: (client: PoolClient, state: TransactionState) => Promise<T>,
    inTransaction: boolean,
  ): Promise<T> {
    if (!this.dataFolderPresent(DATA_FOLDER_CHECK_MS)) throw this.unavailable(new Error('The embedded database data folder is gone'));
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      // Refused, unreachable or no pool connection within DB_CONNECT_TIMEOUT_MS: nothing was sent.
      throw this.unavailable(error);
    }
    const state: TransactionState = { commitInFlight: false, lost: undefined };
    const onError = (error: Error) => {
      state.lost = error;
    };
    client.on('error', onError);
    try {
      return await work(client, state);
    } catch (error) {
      if (isConnectionLost(error)) state.lost ??= asError(error);
      if (inTransaction && state.commitInFlight) {
        this.logger.error(`Database failed while COMMIT was in flight (outcome unknown): ${(error as Error).message}`);
      }
      const classified = classifyDatabaseError(error, state.commitInFlight);
      // A lock wait that timed out is contention between requests, not a database fault.
      if (classified !== error && !isLockTimeout(error)) this.faults.report(faultCause(error), asError(error).message);
      throw classified;
    } finally {
      client.off('error', onError);
      // release(err) destroys the client: a dead connection never goes back to the pool.
      client.release(state.lost);
    }
  }

  private unavailable(error: unknown): RequestError {
    this.faults.report(faultCause(error), asError(error).message);
    return serviceUnavailable(error);
  }

  /**
   * The embedded server's data folder still holds PG_VERSION (always true with DATABASE_URL). A
   * deleted folder does not fail open connections at once: SELECT 1 still answers and writes
   * still commit into unlinked files, to be lost. Checked at most every `maxAgeMs` on the request
   * path (one stat a second); readiness checks it every time.
   */
  private dataFolderPresent(maxAgeMs: number): boolean {
    const dataDir = this.options.dataDir;
    if (!dataDir) return true;
    const now = Date.now();
    if (now - this.dataFolderCheckedAt >= maxAgeMs) {
      this.dataFolderCheckedAt = now;
      this.dataFolderFound = existsSync(path.join(dataDir, 'PG_VERSION'));
    }
    return this.dataFolderFound;
  }

  /**
   * A bounded "can the database serve?" check, for /health/ready, on the health connection (not
   * the pool): a busy pool is not a sick database (docs/reliability.md, readiness).
   */
  async ping(timeoutMs: number): Promise<boolean> {
    if (!this.dataFolderPresent(0)) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([this.health.check(), timeout]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.faults.flushAll();
    await this.health.close();
    if (this.pool.ended) return;
    // pool.end() waits for every checked-out connection to come back, then resolves while each is
    // still closing: the embedded server, stopped next, would end those with 57P01, logged as a
    // fault on a clean shutdown. So this also waits for each to have closed (pg-pool's 'remove').
    // No give-up of its own: work holding a connection ends first (its statements are bounded by
    // statement_timeout and query_timeout), and main.ts's SHUTDOWN_TIMEOUT_MS bounds the whole shutdown.
    const allClosed = new Promise<void>((resolve) => {
      const check = () => {
        if (this.openConnections.size === 0) resolve();
      };
      this.pool.on('remove', check);
      check();
    });
    await this.pool.end();
    await allClosed;
  }
}
