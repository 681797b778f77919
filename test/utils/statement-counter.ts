import type { Pool, PoolClient } from 'pg';

const COUNTED = Symbol('counted');

/**
 * Counts the statements sent through `pool` (BEGIN and COMMIT included) from now on: every client
 * handed out by the pool (new or reused) gets its `query` wrapped once. Test code only.
 */
export function countStatements(pool: Pool): { readonly count: number } {
  const counter = { count: 0 };
  const connect = pool.connect.bind(pool) as () => Promise<PoolClient>;
  const wrap = (client: PoolClient & { [COUNTED]?: boolean }) => {
    if (!client[COUNTED]) {
      client[COUNTED] = true;
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        counter.count++;
        return query(...args);
      };
    }
    return client;
  };
  (pool as unknown as { connect: (callback?: (...args: unknown[]) => void) => unknown }).connect = (
    callback?: (...args: unknown[]) => void,
  ) => {
    if (callback) {
      // pool.query() connects with a callback.
      return (connect as unknown as (cb: (...args: unknown[]) => void) => void)((err: unknown, client: unknown, done: unknown) =>
        callback(err, client ? wrap(client as PoolClient) : client, done),
      );
    }
    return connect().then(wrap);
  };
  return counter;
}
