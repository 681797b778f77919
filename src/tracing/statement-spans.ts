import { dirname } from 'node:path';
import { context, SpanKind, trace, type Attributes } from '@opentelemetry/api';
import { boundedMemo } from '../common/bounded-memo';
import { maskSecrets } from '../logging/logging';
import { OwnSpan, type OwnSpanOptions, type RecordingParent } from './own-span';

/**
 * PostgreSQL statement spans, built by the service itself (loaded only with tracing on, from
 * start-tracing.ts) instead of `@opentelemetry/instrumentation-pg`.
 *
 * Only a statement run inside a sampled trace gets a span; any other goes straight to pg's own
 * `Client.prototype.query` after one check of the active span. A sampled statement's span is an
 * `OwnSpan` (own-span.ts): one small object, already a finished `ReadableSpan` when the statement
 * settles, handed to the span processors' `onEnd` (the batch and its exporter) as the SDK's own
 * spans are. It skips what the instrumentation and the SDK's generic span did for each statement
 * (the query config copied, the connection's attributes built twice, the operation name parsed,
 * a no-op duration metric, span limits and attribute checks, the processors' `onStart`, context
 * binding of the settled promise): six of a single create's eight spans are statements, and at
 * 10% sampling that path ran too rarely for V8 to compile it early (docs/performance.md, "Where
 * 10% goes"). Same span names and attributes as the instrumentation gave (`pg.query:<OP> <db>`,
 * or the prepared statement's name for <OP>; `db.system.name`, `db.postgresql.plan`, `db.namespace`, `server.address`, `server.port`, `db.query.text` masked
 * like the logs), plus the pool wait on each checkout's first statement
 * (`db.client.connection.wait_ms`), under the scope STATEMENT_SCOPE.
 */

/** The instrumentation scope of the statement spans. */
export const STATEMENT_SCOPE = 'contact-sync/postgresql';

/** The span attribute of a statement that had to check its connection out of the pool first. */
export const POOL_WAIT_ATTRIBUTE = 'db.client.connection.wait_ms';

type AnyFunction = (...args: unknown[]) => unknown;
interface PgClient {
  connectionParameters?: { database?: string; host?: string; port?: number | string };
}

/**
 * The checkout wait of a client checked out inside a sampled trace, until its first statement.
 * A WeakMap, not a property on the client: a property set on some clients only gives pg's
 * `Client` objects a second hidden class, and every pg function they pass through is then
 * deoptimised and recompiled polymorphic (docs/performance.md, "What a sampled request left behind").
 */
const poolWaits = new WeakMap<object, number>();

/** Statement texts repeat in every trace (parameters are never in them): each is masked once. */
const maskedStatement = boundedMemo(1000, maskSecrets);
/** A text's operation for the span name (its first word, upper case), as the instrumentation named it. */
const operationOf = boundedMemo(1000, (text: string) => {
  const trimmed = text.trim();
  const space = trimmed.search(/\s/);
  const word = (space === -1 ? trimmed : trimmed.slice(0, space)).toUpperCase();
  return word.endsWith(';') ? word.slice(0, -1) : word;
});

/**
 * Patches pg's `Client.prototype.query` and pg-pool's `connect` (the copies the service and
 * Prisma's adapter load: pg is required from here, before anything else loads it).
 */
export function traceStatements(options: OwnSpanOptions): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pg = require('pg') as { Client: { prototype: Record<string, AnyFunction> } };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pool = require(require.resolve('pg-pool', { paths: [dirname(require.resolve('pg'))] })) as { prototype: Record<string, AnyFunction> };
  const scope = { name: STATEMENT_SCOPE, version: options.version };
  const connectionAttributes = new WeakMap<object, Attributes>();

  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: PgClient, ...args: unknown[]) {
    const parent = trace.getSpan(context.active());
    if (parent === undefined || !parent.isRecording()) return query.apply(this, args);
    return tracedQuery(this, args, parent as unknown as RecordingParent);
  };

  function tracedQuery(client: PgClient, args: unknown[], parent: RecordingParent): unknown {
    const first = args[0] as { text?: unknown; name?: unknown; callback?: unknown } | string | undefined;
    const text = typeof first === 'string' ? first : typeof first?.text === 'string' ? first.text : undefined;
    const plan = typeof first === 'object' && first !== null && typeof first.name === 'string' && first.name !== '' ? first.name : undefined;
    let attributes = connectionAttributes.get(client);
    if (attributes === undefined) {
      const parameters = client.connectionParameters ?? {};
      attributes = { 'db.system.name': 'postgresql' };
      if (parameters.database) attributes['db.namespace'] = parameters.database;
      if (parameters.host) attributes['server.address'] = parameters.host;
      if (parameters.port !== undefined && Number.isFinite(Number(parameters.port))) attributes['server.port'] = Number(parameters.port);
      connectionAttributes.set(client, attributes);
    }
    const own: Attributes = { ...attributes };
    if (text !== undefined) own['db.query.text'] = maskedStatement(text);
    if (plan !== undefined) own['db.postgresql.plan'] = plan;
    const wait = poolWaits.get(client);
    if (wait !== undefined) {
      poolWaits.delete(client);
      own[POOL_WAIT_ATTRIBUTE] = Math.round(wait * 1000) / 1000;
    }
    const database = client.connectionParameters?.database;
    const command = plan ?? (text === undefined ? undefined : operationOf(text));
    const name = command === undefined ? 'pg.query' : `pg.query:${command}${database ? ` ${database}` : ''}`;
    const span = OwnSpan.childOf(name, SpanKind.CLIENT, parent, options.newSpanId(), own, scope);
    const finish = (error: unknown) => {
      const code = error === undefined || error === null ? undefined : (error as { code?: unknown }).code;
      span.finish(options.processors, error, typeof code === 'string' ? code : undefined);
    };

    // A callback query (the callback last, or on the config object) ends when it is called.
    const finishing = (callback: AnyFunction) =>
      function (this: unknown, error: unknown, result: unknown) {
        finish(error);
        return callback.call(this, error, result);
      };
    const last = args.length - 1;
    if (last >= 0 && typeof args[last] === 'function') {
      args[last] = finishing(args[last] as AnyFunction);
      return query.apply(client, args);
    }
    if (typeof first === 'object' && first !== null && typeof first.callback === 'function') {
      first.callback = finishing(first.callback as AnyFunction);
      return query.apply(client, args);
    }
    let result: unknown;
    try {
      result = query.apply(client, args);
    } catch (error) {
      finish(error);
      throw error;
    }
    if (result instanceof Promise) {
      result.then(
        () => finish(undefined),
        (error: unknown) => finish(error),
      );
    } else if (typeof (result as { once?: unknown } | undefined)?.once === 'function') {
      // A submittable (cursor, stream): ends with it.
      const emitter = result as { once(event: string, listener: AnyFunction): void };
      let done = false;
      const once = (error: unknown) => {
        if (done) return;
        done = true;
        finish(error);
      };
      emitter.once('end', () => once(undefined));
      emitter.once('error', (error: unknown) => once(error));
    } else {
      finish(undefined);
    }
    return result;
  }

  // The pool wait (pool.connect() to the client) of a checkout made inside a sampled trace, for its
  // first statement. A callback checkout (what `pool.query` does, and so adapter-pg outside
  // transactions) runs its callback in its caller's context, sampled or not: the pool calls it
  // from whichever request released the client, and the statement would otherwise join that
  // request's trace. For an unsampled caller (no span) that costs one check when the callback
  // runs, and a context entered only if it runs inside a span.
  const connect = pool.prototype.connect;
  pool.prototype.connect = function (this: unknown, callback?: unknown) {
    const active = context.active();
    const span = trace.getSpan(active);
    if (span === undefined || !span.isRecording()) {
      if (typeof callback !== 'function') return connect.call(this);
      const plain = callback as AnyFunction;
      return connect.call(this, function (this: unknown, ...args: unknown[]) {
        if (trace.getSpan(context.active()) === span) return plain.apply(this, args);
        return context.with(active, () => plain.apply(this, args));
      });
    }
    if (typeof callback === 'function') callback = context.bind(active, callback as AnyFunction);
    const started = performance.now();
    const mark = (client: unknown) => {
      if (typeof client === 'object' && client !== null) poolWaits.set(client, performance.now() - started);
    };
    if (typeof callback === 'function') {
      const done = callback as AnyFunction;
      return connect.call(this, (error: unknown, client: unknown, release: unknown) => {
        mark(client);
        return done(error, client, release);
      });
    }
    return (connect.call(this) as Promise<unknown>).then((client) => {
      mark(client);
      return client;
    });
  };
}
