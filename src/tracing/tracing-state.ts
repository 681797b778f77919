import type { Server } from 'node:http';

/**
 * What the rest of the service may ask about tracing, without loading OpenTelemetry: whether it
 * runs, the edge where each request's sampling is decided, the log fields of a request (for
 * pino-http's customProps), and the flush at shutdown. Filled by start-tracing.ts only when
 * tracing is on.
 */
export interface ActiveTracing {
  /** Decides each request's sampling before any listener of the server's `request` event runs. */
  traceRequests(server: Server): void;
  /** trace_id, span_id and trace_flags of the request (sampled or not), or {} if it is not traced (probes). */
  logFields(req: object): Record<string, string>;
  /** Sends the spans still buffered; bounded by the exporter's timeout. */
  shutdown(): Promise<void>;
}

let active: ActiveTracing | undefined;

export function setActiveTracing(tracing: ActiveTracing): void {
  active = tracing;
}

export function activeTracing(): ActiveTracing | undefined {
  return active;
}

/** At shutdown: export what is buffered, never longer than `timeoutMs`, never throw. */
export async function shutdownTracing(timeoutMs: number): Promise<void> {
  if (!active) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    active.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
  ]);
  clearTimeout(timer);
}
