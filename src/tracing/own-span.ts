import { SpanStatusCode, type Attributes, type AttributeValue, type HrTime, type Link, type Span, type SpanContext, type SpanKind, type SpanStatus } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-node';
import { maskSecrets } from '../logging/logging';

/**
 * The service's own spans (loaded only with tracing on): the PostgreSQL statements
 * (statement-spans.ts) and the Nest route (route-spans.ts). One small class for both, so the
 * exporter's serializer sees one shape for most of a trace's spans, and V8 has one set of span
 * functions to compile on the sampled path instead of the SDK's generic one (span limits,
 * attribute validation, the processors' `onStart`, `Date.now` and `performance.now` at both
 * ends, the ended checks): docs/performance.md, "Where 10% goes" and "Our own route spans".
 *
 * A span is started inside a sampled trace only (its parent is recording), is already a finished
 * `ReadableSpan` when `finish` is called, and is then handed to the span processors' `onEnd`
 * (the batch and its exporter) as the SDK's own spans are. Its attributes are already masked
 * (PrivacyExporter passes it through as it is). It is also a `Span`, so that it can be the
 * active span of a context (the route's statements and Redis commands hang under it).
 */

/** The active span a span of ours hangs under (one of the SDK's or an `OwnSpan`, known to be recording). */
export type RecordingParent = { spanContext(): SpanContext; resource: ReadableSpan['resource'] };

/** What traceStatements and traceRoutes take from start-tracing.ts. */
export interface OwnSpanOptions {
  processors: readonly SpanProcessor[];
  newSpanId(): string;
  version: string;
}

const NO_LINKS: Link[] = [];
const OK: SpanStatus = { code: SpanStatusCode.UNSET };

/** Wall-clock milliseconds as the SDK's [seconds, nanoseconds]. */
function hrTimeOf(ms: number): HrTime {
  let seconds = Math.floor(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * 1e6);
  if (nanos >= 1e9) {
    seconds += 1;
    nanos -= 1e9;
  }
  return [seconds, nanos];
}

export class OwnSpan implements ReadableSpan, Span {
  readonly parentSpanContext: SpanContext;
  readonly startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: SpanStatus = OK;
  readonly links = NO_LINKS;
  events: TimedEvent[] = [];
  ended = false;
  readonly resource: ReadableSpan['resource'];
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  private readonly context: SpanContext;
  /** Date.now() − performance.now() at the start, as the SDK's spans take their times. */
  private readonly offset: number;
  private readonly started: number;

  constructor(
    readonly name: string,
    readonly kind: SpanKind,
    parent: RecordingParent,
    spanId: string,
    readonly attributes: Attributes,
    readonly instrumentationScope: ReadableSpan['instrumentationScope'],
  ) {
    const parentContext = parent.spanContext();
    this.parentSpanContext = parentContext;
    this.context = { traceId: parentContext.traceId, spanId, traceFlags: parentContext.traceFlags };
    this.resource = parent.resource;
    this.started = performance.now();
    this.offset = Date.now() - this.started;
    this.startTime = hrTimeOf(this.offset + this.started);
    this.endTime = this.startTime;
    this.duration = [0, 0];
  }

  spanContext(): SpanContext {
    return this.context;
  }

  /**
   * The work settled: its end, and for an error its status and exception event (masked like the
   * logs; `errorType` as `error.type`); then the processors get the span. Once only.
   */
  finish(processors: readonly SpanProcessor[], error?: unknown, errorType?: string): void {
    if (this.ended) return;
    const elapsed = performance.now() - this.started;
    this.endTime = hrTimeOf(this.offset + this.started + elapsed);
    this.duration = hrTimeOf(elapsed);
    this.ended = true;
    if (error !== undefined && error !== null) {
      const message = maskSecrets(error instanceof Error ? error.message : typeof error === 'string' ? error : 'failed');
      if (errorType !== undefined) this.attributes['error.type'] = errorType;
      this.status = { code: SpanStatusCode.ERROR, message };
      this.events = [
        {
          name: 'exception',
          time: this.endTime,
          attributes: { 'exception.type': error instanceof Error ? error.name : typeof error, 'exception.message': message },
          droppedAttributesCount: 0,
        },
      ];
    }
    for (const processor of processors) processor.onEnd(this);
  }

  // The `Span` side, for whatever finds this span active (the SDK reads only `spanContext` and
  // `isRecording` of a parent). Attributes set from outside are masked like the logs.
  isRecording(): boolean {
    return !this.ended;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (!this.ended) this.attributes[key] = typeof value === 'string' ? maskSecrets(value) : value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) if (value !== undefined) this.setAttribute(key, value);
    return this;
  }

  addEvent(): this {
    return this;
  }

  addLink(): this {
    return this;
  }

  addLinks(): this {
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (!this.ended) this.status = status.message === undefined ? status : { code: status.code, message: maskSecrets(status.message) };
    return this;
  }

  updateName(): this {
    return this;
  }

  /** Ended by `finish` only (it needs the processors). */
  end(): void {}

  recordException(): void {}
}
