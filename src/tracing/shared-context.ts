import type { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type * as PinoStorage from 'nestjs-pino/storage';

/**
 * OpenTelemetry's context kept in nestjs-pino's AsyncLocalStorage (loaded only with tracing on,
 * from start-tracing.ts), instead of a second AsyncLocalStorage of its own.
 *
 * nestjs-pino already runs every request inside its storage (the request's logger). On Node 20
 * each enabled AsyncLocalStorage costs every promise of the process an async_hooks write of its
 * own symbol: a second one, enabled by the first sampled request, made every later request pay
 * for it, sampled or not, about half again the promise bookkeeping (docs/performance.md,
 * "Tracing, eighth pass"). With one storage a request pays that once, as with tracing off. Node 24
 * (AsyncContextFrame, no hooks) gains little, loses nothing.
 *
 * The OpenTelemetry context is a field of nestjs-pino's `Store`: `with` runs its callback in a
 * copy of the current store (same loggers) with the new context, and nestjs-pino's own
 * `new Store(log, resLog)` (its request middleware, inside the edge's context) takes the current
 * context, so a request's route and statement spans still find its server span. The logger and
 * the context travel together as they did in two storages: both follow the same async resources.
 */

type Logger = PinoStorage.Store['logger'];
type Store = PinoStorage.Store & { traceContext?: Context };
type StoreClass = new (logger: Logger, responseLogger?: Logger, context?: Context) => Store;

// Required, not imported: the module's own exports object, whose `Store` nestjs-pino's middleware reads at each request.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pinoStorage = require('nestjs-pino/storage') as { storage: AsyncLocalStorage<Store>; Store: StoreClass };
const { storage } = pinoStorage;

/** The store nestjs-pino makes for each request also carries the context it was made in. */
function inheritContext(): void {
  const Base = pinoStorage.Store;
  if ((Base as { inheritsTraceContext?: boolean }).inheritsTraceContext) return;
  class TracedStore extends Base {
    static readonly inheritsTraceContext = true;
    override traceContext: Context | undefined;
    constructor(logger: Logger, responseLogger?: Logger, context: Context | undefined = storage.getStore()?.traceContext) {
      super(logger, responseLogger);
      this.traceContext = context; // always set: one hidden class for every store
    }
  }
  pinoStorage.Store = TracedStore;
  // A getter-only export (another build of nestjs-pino) would keep its own Store: requests' spans would lose their parent.
  if (pinoStorage.Store !== TracedStore) throw new Error('nestjs-pino/storage: its Store cannot be replaced: check its version');
}

export class SharedStorageContextManager extends AsyncLocalStorageContextManager {
  constructor() {
    super();
    inheritContext();
  }

  override active(): Context {
    return storage.getStore()?.traceContext ?? ROOT_CONTEXT;
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const cb = thisArg == null ? fn : (fn.bind(thisArg) as F);
    return storage.run(storeWith(context), cb, ...args);
  }

  override attach(context: Context): { dispose(): void } {
    const previous = storage.getStore();
    storage.enterWith(storeWith(context));
    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        storage.enterWith(previous as Store);
      },
    };
  }

  override enable(): this {
    return this;
  }

  /** The storage is nestjs-pino's: never disabled from here. */
  override disable(): this {
    return this;
  }
}

/** A copy of the current store (its loggers) with `context`. */
function storeWith(context: Context): Store {
  const current = storage.getStore();
  return new pinoStorage.Store(current?.logger as Logger, current?.responseLogger, context);
}
