/**
 * What the rest of the service may ask about tracing, without loading OpenTelemetry: whether it
 * runs, the log fields of the current span (for pino's mixin), and the flush at shutdown. Filled
 * by start-tracing.ts only when tracing is on.
 */
export interface ActiveTracing {
  /** trace_id, span_id and trace_flags of the active span, or {} outside a request. */
  logFields(): Record<string, string>;
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
