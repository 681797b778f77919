import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { databaseUrlOn, ensureDatabase } from '../../src/database/embedded-postgres';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { freePort } from '../utils/net';

/**
 * A PostgreSQL server owned by one test file (embedded, its own port and folder), so the test can
 * stop it, start it again and terminate its backends without disturbing any other test. Its data
 * folder is a copy of one stopped cluster per test run (FaultDatabase.cluster) whose `faults` database has
 * the migrations' SQL applied in order (what `prisma migrate deploy` runs).
 */
export class FaultDatabase {
  private child?: ChildProcess;
  private output = '';
  private constructor(
    private readonly dataDir: string,
    private readonly port: number,
    readonly url: string,
    private readonly serverUrl: string,
  ) {}

  static async start(): Promise<FaultDatabase> {
    const cluster = await FaultDatabase.cluster();
    const db = await FaultDatabase.inNewFolder();
    try {
      execFileSync('cp', ['-a', cluster, db.dataDir]); // -a: PostgreSQL's user keeps owning it (as root)
      await db.startServer();
    } catch (error) {
      await db.destroy(); // no server or folder left behind
      throw error;
    }
    return db;
  }

  /** A server-to-be on a free port, its data folder `pg` in a new folder PostgreSQL's user can enter. */
  private static async inNewFolder(parent = mkdtempSync(path.join(os.tmpdir(), 'contact-sync-faults-'))): Promise<FaultDatabase> {
    chmodSync(parent, 0o755); // as root, PostgreSQL runs as its own user and must reach the folder
    const port = await freePort();
    const serverUrl = `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
    return new FaultDatabase(path.join(parent, 'pg'), port, databaseUrlOn(serverUrl, 'faults'), serverUrl);
  }

  /**
   * The stopped cluster every FaultDatabase of this test run copies: made by the first file that
   * needs it (initdb and the migrations are the slow part of a start). Files that get here at once
   * each make one in a folder of their own; the first renamed into place is kept, the others are
   * removed. test/global-teardown.ts removes it.
   */
  static async cluster(): Promise<string> {
    const kept = faultsClusterOf(process.env.TEST_PG_TEMPLATE ?? `pid-${process.pid}`);
    if (existsSync(path.join(kept, 'PG_VERSION'))) return kept;
    const parent = mkdtempSync(`${kept}.partial-`);
    const db = await FaultDatabase.inNewFolder(parent);
    try {
      await db.startServer();
      await ensureDatabase(db.serverUrl, 'faults');
      await db.withClient(async (client) => {
        const folder = path.join(PROJECT_ROOT, 'prisma', 'migrations');
        for (const name of readdirSync(folder).filter((entry) => /^\d/.test(entry)).sort()) {
          await client.query(readFileSync(path.join(folder, name, 'migration.sql'), 'utf8'));
        }
      });
      await db.exit();
      try {
        renameSync(db.dataDir, kept);
      } catch (error) {
        if (!existsSync(path.join(kept, 'PG_VERSION'))) throw error; // else another file's is in place
      }
    } finally {
      await db.destroy();
    }
    return kept;
  }

  async startServer(): Promise<void> {
    if (!this.child) {
      this.child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(__dirname, 'embedded-server.ts'), this.dataDir, String(this.port)], {
        cwd: PROJECT_ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      this.child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    } else {
      this.child.stdin?.write('start\n');
    }
    await this.waitFor('started');
  }

  async stopServer(): Promise<void> {
    this.child?.stdin?.write('stop\n');
    await this.waitFor('stopped');
  }

  /** Waits for the child's next answer `word` (each answer is consumed once). */
  private async waitFor(word: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!this.output.includes(`${word}\n`)) {
      if (Date.now() > deadline || this.child?.exitCode !== null) throw new Error(`embedded server: no "${word}" (${this.output})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.output = this.output.replace(`${word}\n`, '');
  }

  /** Terminates the service's backends (every backend of the database but our own); returns how many. */
  async terminateBackends(limit?: number): Promise<number> {
    return this.withClient(async (client) => {
      const { rows } = await client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = 'faults' AND pid <> pg_backend_pid() AND backend_type = 'client backend'
         ORDER BY state = 'idle in transaction' DESC, random() LIMIT $1`,
        [limit ?? 1000],
      );
      for (const { pid } of rows) await client.query('SELECT pg_terminate_backend($1)', [pid]);
      return rows.length;
    });
  }

  /**
   * `rounds` times: wait `gapMs`, then terminate `perRound` backends (all when unset); a last wait of
   * `gapMs` lets the load meet the final round. Returns how many were terminated in all.
   */
  async terminateInRounds(rounds: number, gapMs: number, perRound?: number): Promise<number> {
    const pause = () => new Promise((resolve) => setTimeout(resolve, gapMs));
    let terminated = 0;
    for (let i = 0; i < rounds; i++) {
      await pause();
      terminated += await this.terminateBackends(perRound);
    }
    await pause();
    return terminated;
  }

  async withClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: this.url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Stops the server (cleanly: its folder can be copied) and ends its process. */
  private async exit(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child?.once('exit', resolve));
      this.child.stdin?.write('exit\n');
      await exited;
    }
  }

  async destroy(): Promise<void> {
    await this.exit();
    rmSync(path.dirname(this.dataDir), { recursive: true, force: true });
  }
}

/**
 * Terminates the backends of the holder's database that wait on a lock (the holder's own excepted),
 * polling until one does or `timeoutMs` has passed; how many it terminated (0: none waited). The
 * holder usually runs inside the transaction that holds the lock.
 */
export async function terminateLockWaiters(holder: Client, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // In a transaction, pg_stat_activity's list of backends is a snapshot taken at its first read
    // (only wait_event_type is read live): without a fresh one, a backend the pool opened for the
    // request after the first poll is never seen (CI, once: the test before had terminated one).
    await holder.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await holder.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
    );
    if (rows.length > 0) {
      for (const { pid } of rows) await holder.query('SELECT pg_terminate_backend($1)', [pid]);
      return rows.length;
    }
    if (Date.now() > deadline) return 0;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Where a test run keeps the cluster FaultDatabase copies (`template`: the run's template database). */
export function faultsClusterOf(template: string): string {
  return path.join(os.tmpdir(), `contact-sync-faults-cluster-${template}`);
}
