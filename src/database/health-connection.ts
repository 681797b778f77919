import { Client } from 'pg';

export interface HealthConnectionOptions {
  url: string;
  connectTimeoutMs: number;
}

/**
 * One PostgreSQL connection of its own, outside the request pool, for /health/ready. Asked
 * through the pool, `SELECT 1` waits behind every request queued for a pool connection: a busy
 * but healthy instance then fails its probe and is taken out of rotation, pushing its load onto
 * the others. This connection answers whatever the pool's queue, and still fails at once when the
 * database is gone (refused, terminated, dropped). It is opened on the first check and replaced
 * after any failure; concurrent checks share one round trip.
 */
export class HealthConnection {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private inFlight: Promise<boolean> | undefined;
  private closed = false;

  constructor(private readonly options: HealthConnectionOptions) {}

  /** True when the database answered `SELECT 1`; false on any failure (never throws). */
  check(): Promise<boolean> {
    this.inFlight ??= this.selectOne().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async selectOne(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const client = await this.connected();
      await client.query('SELECT 1');
      return true;
    } catch {
      this.discard();
      return false;
    }
  }

  private connected(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new Client({
        connectionString: this.options.url,
        connectionTimeoutMillis: this.options.connectTimeoutMs,
        query_timeout: this.options.connectTimeoutMs,
        keepAlive: true,
        application_name: 'contact-sync health',
      });
      // A connection dropped while idle (restart, terminate): replaced on the next check.
      client.on('error', () => {
        if (this.client === client) this.discard();
      });
      try {
        await client.connect();
      } catch (error) {
        void client.end().catch(() => undefined);
        throw error;
      }
      if (this.closed) {
        void client.end().catch(() => undefined);
        throw new Error('closed');
      }
      this.client = client;
      return client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private discard(): void {
    const client = this.client;
    this.client = undefined;
    void client?.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
