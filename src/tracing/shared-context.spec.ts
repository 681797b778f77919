import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { Store, storage } from 'nestjs-pino/storage';
import type { Logger } from 'pino';
import { SharedStorageContextManager } from './shared-context';

/**
 * OpenTelemetry's context in nestjs-pino's AsyncLocalStorage (shared-context.ts): the request's
 * logger and its trace context travel together, and entering a trace context enables no
 * AsyncLocalStorage beyond nestjs-pino's.
 */
const KEY = createContextKey('test');
const logger = (name: string) => ({ name }) as unknown as Logger;
const storeOf = () => storage.getStore();

/** How many AsyncLocalStorage instances wrote their store on a new promise (Node 20's async_hooks; none on Node 24). */
const storagesOnAPromise = () => Object.getOwnPropertySymbols(Promise.resolve()).filter((symbol) => symbol.description === 'kResourceStore').length;

describe('the trace context in nestjs-pino storage', () => {
  afterEach(() => context.disable());

  it('context.with keeps the request logger, and nestjs-pino middleware store takes the active context', async () => {
    context.setGlobalContextManager(new SharedStorageContextManager());
    const traced = ROOT_CONTEXT.setValue(KEY, 'edge');
    expect(context.active()).toBe(ROOT_CONTEXT);

    await context.with(traced, async () => {
      // The edge runs before nestjs-pino's middleware: no logger yet, PinoLogger falls back to its root.
      expect(storeOf()?.logger).toBeUndefined();
      // nestjs-pino's middleware, as LoggerModule runs it (`new storage_1.Store(...)`, read at each request).
      await storage.run(new Store(logger('request')), async () => {
        await Promise.resolve();
        expect(context.active().getValue(KEY)).toBe('edge');
        const route = context.active().setValue(KEY, 'route');
        await context.with(route, async () => {
          await new Promise((resolve) => setImmediate(resolve));
          expect(context.active().getValue(KEY)).toBe('route');
          expect(storeOf()?.logger).toEqual(logger('request'));
        });
        expect(context.active().getValue(KEY)).toBe('edge');
        // A callback bound to a context runs in it, with the logger of where it is called.
        const bound = context.bind(ROOT_CONTEXT, () => [context.active(), storeOf()?.logger]);
        expect(bound()).toEqual([ROOT_CONTEXT, logger('request')]);
      });
    });
    expect(context.active()).toBe(ROOT_CONTEXT);
    expect(storeOf()).toBeUndefined();
  });

  it('entering a trace context enables no AsyncLocalStorage of its own (Node 20: one write less on every promise)', () => {
    const before = storage.run(new Store(logger('request')), storagesOnAPromise);
    context.setGlobalContextManager(new SharedStorageContextManager());
    const inside = context.with(ROOT_CONTEXT.setValue(KEY, 'sampled'), storagesOnAPromise);
    const after = storage.run(new Store(logger('request')), storagesOnAPromise);
    expect([inside, after]).toEqual([before, before]);
  });

  it('(the stock manager, for contrast, enables a second one on Node 20)', () => {
    const before = storage.run(new Store(logger('request')), storagesOnAPromise);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager());
    context.with(ROOT_CONTEXT.setValue(KEY, 'sampled'), () => undefined);
    const after = storage.run(new Store(logger('request')), storagesOnAPromise);
    expect(after).toBe(process.versions.node.startsWith('20.') ? before + 1 : before);
  });
});
