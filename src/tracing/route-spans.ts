import { context, SpanKind, trace, type Attributes } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { loggablePath } from '../logging/logging';
import { OwnSpan, type OwnSpanOptions, type RecordingParent } from './own-span';

/**
 * The Nest route's span (`ContactsController.createOrUpdate`), built by the service itself
 * (loaded only with tracing on, from start-tracing.ts) instead of
 * `@opentelemetry/instrumentation-nestjs-core`.
 *
 * Nest builds one handler per route at start (`RouterExecutionContext.prototype.create`: guards,
 * interceptors, pipes and the controller's method); that is wrapped here. A request outside a
 * sampled trace runs the handler as is, after one check of the active span. A sampled one gets an
 * `OwnSpan` (own-span.ts) that is the active span while the handler runs, so the statements and
 * Redis commands hang under it, and that ends when the handler's promise settles: the error
 * status and an `exception` event if it rejects (a guard's 401, a validation 400, as the
 * instrumentation recorded them). Same name and attributes as the instrumentation gave
 * (`component`, `nestjs.version`, `nestjs.type: request_context`, `nestjs.controller`,
 * `nestjs.callback`, `http.route`, `http.request.method`, `url.full` masked like the logged path),
 * under the scope ROUTE_SCOPE. What it skips per sampled request: the SDK's generic span twice
 * (the route's and the handler's, which the instrumentation also made and start-tracing.ts had
 * to take out again), their attribute copies, span limits and `onStart`, the instrumentation's
 * async wrapper around the handler, and the masking copy in PrivacyExporter
 * (docs/performance.md, "Our own route spans").
 */

/** The instrumentation scope of the route spans. */
export const ROUTE_SCOPE = 'contact-sync/nest-route';

type AnyFunction = (...args: unknown[]) => unknown;
interface RouteRequest {
  method?: string;
  url?: string;
  originalUrl?: string;
  route?: { path?: unknown };
}

/** Patches the `RouterExecutionContext` Nest's router uses (required here: the same module instance). */
export function traceRoutes(options: OwnSpanOptions): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { RouterExecutionContext } = require('@nestjs/core/router/router-execution-context') as {
    RouterExecutionContext: { prototype: Record<string, AnyFunction> };
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const nestVersion = (require('@nestjs/core/package.json') as { version: string }).version;
  const scope = { name: ROUTE_SCOPE, version: options.version };
  const create = RouterExecutionContext.prototype.create;
  if (typeof create !== 'function') throw new Error('@nestjs/core has no RouterExecutionContext.prototype.create: check its version');

  RouterExecutionContext.prototype.create = function (this: unknown, ...args: unknown[]) {
    const handler = create.apply(this, args) as AnyFunction;
    const instance = args[0] as { constructor?: { name?: string } } | undefined;
    const callback = args[1] as { name?: string } | undefined;
    const controller = instance?.constructor?.name || 'UnnamedInstance';
    const callbackName = callback?.name ?? '';
    const name = callbackName ? `${controller}.${callbackName}` : controller;
    return function (this: unknown, ...requestArgs: unknown[]) {
      const parent = trace.getSpan(context.active());
      if (parent === undefined || !parent.isRecording()) return handler.apply(this, requestArgs);
      const req = (requestArgs[0] ?? {}) as RouteRequest;
      const route = req.route?.path;
      const attributes: Attributes = {
        component: '@nestjs/core',
        'nestjs.version': nestVersion,
        'nestjs.type': 'request_context',
        'nestjs.controller': controller,
        'nestjs.callback': callbackName,
        'http.request.method': req.method ?? '',
        'url.full': loggablePath(req.originalUrl || req.url || '/'),
      };
      if (typeof route === 'string') attributes['http.route'] = route;
      const span = OwnSpan.childOf(name, SpanKind.INTERNAL, parent as unknown as RecordingParent, options.newSpanId(), attributes, scope);
      return context.with(trace.setSpan(context.active(), span), () => run(this, handler, requestArgs, span, options.processors));
    };
  };
}

async function run(self: unknown, handler: AnyFunction, args: unknown[], span: OwnSpan, processors: readonly SpanProcessor[]): Promise<unknown> {
  try {
    const result = await handler.apply(self, args);
    span.finish(processors);
    return result;
  } catch (error) {
    span.finish(processors, error);
    throw error;
  }
}
