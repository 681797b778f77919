import { Logger } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import type { PoolClient } from 'pg';
import { CommitOutcomeUnknownError, isConnectionLost } from './database-errors';
import type { Database } from './database';

// The driver-adapter interfaces, taken from @prisma/adapter-pg's own declarations (no extra package).
type PgAdapter = Pick<
  Awaited<ReturnType<PrismaPg['connect']>>,
  'provider' | 'adapterName' | 'queryRaw' | 'executeRaw' | 'executeScript' | 'startTransaction' | 'getConnectionInfo' | 'dispose'
>;
type AdapterTransaction = Awaited<ReturnType<PgAdapter['startTransaction']>>;
type SqlQuery = Parameters<PgAdapter['queryRaw']>[0];
type SqlResultSet = Awaited<ReturnType<PgAdapter['queryRaw']>>;
type IsolationLevel = Parameters<PgAdapter['startTransaction']>[0];

/** What this wrapper uses of adapter-pg's transaction object (7.10.1: `PgTransaction`). */
interface PgTransactionInternals {
  client?: PoolClient;
  cleanup?: () => void;
}

/**
 * Prisma Client's driver adapter on the Database's pool: @prisma/adapter-pg, with interactive
 * transactions that always give their pg connection back, destroyed when it died.
 *
 * Why (see docs/database-faults.md, "Prisma's interactive transactions"): @prisma/client 6.19.3's
 * TransactionManager closes a transaction with `await executeRaw("COMMIT" | "ROLLBACK")` and only
 * then `await transaction.commit() | rollback()`, which is what releases the pg client. When the
 * backend was terminated, executeRaw throws and the release never runs: the client stays checked
 * out forever and the pool shrinks by one slot per fault until every request waits for a
 * connection. adapter-pg's commit()/rollback() also release without the error.
 *
 * The fix, at the adapter: our transactions declare `usePhantomQuery`, so the TransactionManager
 * only calls commit()/rollback() (it logs a phantom "COMMIT"); they send COMMIT/ROLLBACK themselves
 * and release the client in a `finally`, with `release(err)` when the connection died (pg-pool
 * destroys it). A checked-out client always has an 'error' listener (adapter-pg adds one; ours
 * records the loss). A COMMIT that fails is resolved like on the raw path (Database.transaction):
 * the transaction id (only assigned if the transaction wrote) is read just before COMMIT; nothing
 * written → the error stands (503); otherwise pg_xact_status decides: committed → success,
 * aborted → the error (503), unknowable → CommitOutcomeUnknownError (500, outcome unknown).
 */
export class ReleasingPgAdapterFactory {
  readonly provider = 'postgres' as const;
  readonly adapterName: string;
  private readonly inner: PrismaPg;

  constructor(private readonly database: Database) {
    this.inner = new PrismaPg(database.pool);
    this.adapterName = this.inner.adapterName;
  }

  async connect(): Promise<PgAdapter> {
    return new ReleasingPgAdapter(await this.inner.connect(), this.database);
  }
}

class ReleasingPgAdapter implements PgAdapter {
  readonly provider: PgAdapter['provider'];
  readonly adapterName: string;

  constructor(
    private readonly inner: PgAdapter,
    private readonly database: Database,
  ) {
    this.provider = inner.provider;
    this.adapterName = inner.adapterName;
  }

  // Outside transactions adapter-pg uses pool.query(), which releases with the error itself.
  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.inner.queryRaw(query);
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.inner.executeRaw(query);
  }

  executeScript(script: string): Promise<void> {
    return this.inner.executeScript(script);
  }

  getConnectionInfo(): ReturnType<NonNullable<PgAdapter['getConnectionInfo']>> {
    return this.inner.getConnectionInfo();
  }

  dispose(): Promise<void> {
    return this.inner.dispose();
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<AdapterTransaction> {
    // adapter-pg checks out a client, adds its 'error' listener and sends BEGIN (on failure it
    // already releases with the error).
    const transaction = await this.inner.startTransaction(isolationLevel);
    const { client, cleanup } = transaction as unknown as PgTransactionInternals;
    if (!client || typeof client.release !== 'function') {
      // adapter-pg changed shape: fail loudly rather than leak (the exact version is pinned).
      await transaction.rollback();
      throw new Error('@prisma/adapter-pg transaction has no pg client: ReleasingPgAdapter must be updated');
    }
    return new ReleasingTransaction(transaction, client, cleanup, this.database);
  }
}

const logger = new Logger('PrismaTransactions');

class ReleasingTransaction implements AdapterTransaction {
  readonly provider: AdapterTransaction['provider'];
  readonly adapterName: string;
  /** The TransactionManager sends no COMMIT/ROLLBACK of its own: commit()/rollback() do it. */
  readonly options = { usePhantomQuery: true };
  private lost: Error | undefined;
  private released = false;
  private readonly onError = (error: Error) => {
    this.lost ??= error;
  };

  constructor(
    private readonly inner: AdapterTransaction,
    private readonly client: PoolClient,
    private readonly cleanup: (() => void) | undefined,
    private readonly database: Database,
  ) {
    this.provider = inner.provider;
    this.adapterName = inner.adapterName;
    client.on('error', this.onError);
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.watch(this.inner.queryRaw(query));
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.watch(this.inner.executeRaw(query));
  }

  createSavepoint(name: string): Promise<void> {
    return this.watch(this.inner.createSavepoint!(name));
  }

  rollbackToSavepoint(name: string): Promise<void> {
    return this.watch(this.inner.rollbackToSavepoint!(name));
  }

  releaseSavepoint(name: string): Promise<void> {
    return this.watch(this.inner.releaseSavepoint!(name));
  }

  async commit(): Promise<void> {
    try {
      if (this.lost) throw this.lost; // the connection died after the last statement: nothing committed
      const xid = await this.transactionId();
      try {
        await this.client.query('COMMIT');
      } catch (error) {
        this.noteLoss(error);
        if (xid === null) throw error; // the transaction wrote nothing: no outcome to ask about
        const outcome = await this.database.commitOutcome(xid);
        if (outcome === 'committed') return;
        if (outcome === 'aborted') throw error; // known: nothing was written
        logger.error(`Prisma transaction failed while COMMIT was in flight (outcome unknown): ${(error as Error).message}`);
        throw new CommitOutcomeUnknownError(error);
      }
    } finally {
      this.release();
    }
  }

  async rollback(): Promise<void> {
    try {
      if (!this.lost) await this.client.query('ROLLBACK');
    } catch (error) {
      // A failed ROLLBACK means the connection is gone (the server rolls back by itself): the
      // transaction is closed either way, the client is destroyed below.
      this.lost ??= error instanceof Error ? error : new Error(String(error));
    } finally {
      this.release();
    }
  }

  /** The transaction id, or null when the transaction wrote nothing (no id was assigned). */
  private async transactionId(): Promise<string | null> {
    try {
      const { rows } = await this.client.query<{ xid: string | null }>('SELECT pg_current_xact_id_if_assigned()::text AS xid');
      return rows[0].xid;
    } catch (error) {
      this.noteLoss(error);
      throw error; // COMMIT was not sent: nothing committed
    }
  }

  private async watch<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      this.noteLoss(error);
      throw error;
    }
  }

  /** adapter-pg passes connection errors through raw, or as a DriverAdapterError with the SQLSTATE in `cause`. */
  private noteLoss(error: unknown): void {
    if (this.lost) return;
    if (isConnectionLost(error)) this.lost = error as Error;
  }

  /** Exactly once: the client goes back to the pool, or is destroyed (release(err)) when it died. */
  private release(): void {
    if (this.released) return;
    this.released = true;
    this.client.off('error', this.onError);
    this.cleanup?.(); // adapter-pg's own 'error' listener
    this.client.release(this.lost);
  }
}
