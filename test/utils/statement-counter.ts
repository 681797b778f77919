import type { Pool, PoolClient } from 'pg';

const COUNTED = Symbol('counted');

/**
 * Counts the statements sent through `pool` (BEGIN and COMMIT included) from now on: every client
 * handed out by the pool (new or reused) gets its `query` wrapped once. `seen`, if given, is shown
 * each statement's text, values and client. Test code only.
 */
export function countStatements(pool: Pool, seen?: (text: string, values: unknown[], client: PoolClient) => void): { readonly count: number } {
  const counter = { count: 0 };
  const connect = pool.connect.bind(pool) as () => Promise<PoolClient>;
  const wrap = (client: PoolClient & { [COUNTED]?: boolean }) => {
    if (!client[COUNTED]) {
      client[COUNTED] = true;
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        counter.count++;
        if (seen) {
          const [first, second] = args as [string | { text?: string; values?: unknown[] }, unknown[] | undefined];
          if (typeof first === 'string') seen(first, second ?? [], client);
          else seen(first?.text ?? '', first?.values ?? [], client);
        }
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
