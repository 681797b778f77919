import { SpanStatusCode, type Attributes, type AttributeValue, type HrTime, type Link, type Span, type SpanContext, type SpanKind, type SpanStatus } from '@opentelemetry/api';
import { isAttributeValue, sanitizeAttributes } from '@opentelemetry/core';
import type { ReadableSpan, SpanLimits, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-node';
import { maskSecrets } from '../logging/logging';

/**
 * The service's own spans (loaded only with tracing on): the HTTP server span (request-edge.ts),
 * the Nest route (route-spans.ts) and the PostgreSQL statements (statement-spans.ts). One small
 * class for all three, so the exporter's serializer sees one shape for every span of a trace but
 * Redis commands, and V8 has one set of span functions to compile on the sampled path instead of
 * the SDK's generic one as well (the processors' `onStart`, `Date.now` and `performance.now` at
 * both ends, the ended checks, the tracer's metrics): docs/performance.md, "Where 10% goes",
 * "Our own route spans" and "Tracing, seventh pass".
 *
 * A span is started inside a sampled trace only (its parent is recording, or for the HTTP span
 * the edge's decision sampled it), is already a finished `ReadableSpan` when `finish` is called,
 * and is then handed to the span processors' `onEnd` (the batch and its exporter) as the SDK's own
 * spans are. The route and statement spans' attributes are masked when set (PrivacyExporter
 * passes them through as they are); the HTTP span's are set as the SDK's span sets them, within
 * the provider's span limits (`limits`), and masked once by PrivacyExporter (`masked`), so that
 * its export is what the SDK's span gave. It is also a `Span`, so that it can be the active span
 * of a context (the route's statements and Redis commands hang under it).
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
  readonly startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: SpanStatus = OK;
  readonly links = NO_LINKS;
  events: TimedEvent[] = [];
  ended = false;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  /** False while the attributes and events are as set (the HTTP span): PrivacyExporter masks them once. */
  masked: boolean;
  private attributesCount = 0;
  /** Date.now() − performance.now() at the start, as the SDK's spans take their times. */
  private readonly offset: number;
  private readonly started: number;

  constructor(
    public name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    readonly resource: ReadableSpan['resource'],
    public attributes: Attributes,
    readonly instrumentationScope: ReadableSpan['instrumentationScope'],
    /**
     * The span limits (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, ...) as the SDK's spans apply them, for a
     * span whose attributes are set from outside (the HTTP server span), which then behaves as the
     * SDK's span and is masked at export; undefined for the route and statement spans, whose
     * attributes are few, bounded and masked when set.
     */
    readonly limits?: SpanLimits,
  ) {
    this.masked = limits === undefined;
    this.started = performance.now();
    this.offset = Date.now() - this.started;
    this.startTime = hrTimeOf(this.offset + this.started);
    this.endTime = this.startTime;
    this.duration = [0, 0];
  }

  /** A span under `parent` (recording): its trace, flags and trace state, and its resource. */
  static childOf(
    name: string,
    kind: SpanKind,
    parent: RecordingParent,
    spanId: string,
    attributes: Attributes,
    scope: ReadableSpan['instrumentationScope'],
  ): OwnSpan {
    const parentContext = parent.spanContext();
    const context: SpanContext = { traceId: parentContext.traceId, spanId, traceFlags: parentContext.traceFlags, traceState: parentContext.traceState };
    return new OwnSpan(name, kind, context, parentContext, parent.resource, attributes, scope);
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
  // `isRecording` of a parent), and for the HTTP server span (request-edge.ts). With `limits`
  // (the HTTP span) it behaves as the SDK's span: span limits, values as set, masked at export;
  // without, attributes set from outside are masked like the logs at once.
  isRecording(): boolean {
    return !this.ended;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (this.ended || value === undefined || value === null) return this;
    const limits = this.limits;
    if (limits === undefined) {
      this.attributes[key] = typeof value === 'string' ? maskSecrets(value) : value;
      return this;
    }
    if (key.length === 0 || !isAttributeValue(value)) return this; // as the SDK (which also warns)
    const isNew = !Object.prototype.hasOwnProperty.call(this.attributes, key);
    if (isNew && limits.attributeCountLimit !== undefined && this.attributesCount >= limits.attributeCountLimit) {
      this.droppedAttributesCount++;
      return this;
    }
    this.attributes[key] = truncated(value, limits.attributeValueLengthLimit);
    if (isNew) this.attributesCount++;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) if (Object.prototype.hasOwnProperty.call(attributes, key)) this.setAttribute(key, attributes[key]);
    return this;
  }

  /** An event (the HTTP span's `exception`), within the span limits as the SDK keeps them. */
  addEvent(name: string, attributes?: Attributes): this {
    const limits = this.limits;
    if (this.ended || limits === undefined) return this;
    if (limits.eventCountLimit === 0) {
      this.droppedEventsCount++;
      return this;
    }
    if (limits.eventCountLimit !== undefined && this.events.length >= limits.eventCountLimit) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    const sanitized = sanitizeAttributes(attributes);
    const kept: Attributes = {};
    let count = 0;
    let dropped = 0;
    for (const key in sanitized) {
      const value = sanitized[key];
      if (limits.attributePerEventCountLimit !== undefined && count >= limits.attributePerEventCountLimit) {
        dropped++;
        continue;
      }
      kept[key] = value === undefined ? value : truncated(value, limits.attributeValueLengthLimit);
      count++;
    }
    this.events.push({ name, attributes: kept, time: hrTimeOf(this.offset + performance.now()), droppedAttributesCount: dropped });
    return this;
  }

  addLink(): this {
    return this;
  }

  addLinks(): this {
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.ended) return this;
    if (this.limits === undefined) {
      this.status = status.message === undefined ? status : { code: status.code, message: maskSecrets(status.message) };
      return this;
    }
    // As the SDK: UNSET changes nothing, OK is final, a message only with ERROR.
    if (status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status = status.code === SpanStatusCode.ERROR && typeof status.message === 'string' ? { code: status.code, message: status.message } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  /** Ended by `finish` only (it needs the processors). */
  end(): void {}

  /** As the SDK records one: an `exception` event (type: the error's code, else its name). */
  recordException(exception: unknown): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (exception !== null && typeof exception === 'object') {
      const { code, name, message, stack } = exception as { code?: unknown; name?: unknown; message?: unknown; stack?: unknown };
      if (code) attributes['exception.type'] = (code as { toString(): string }).toString();
      else if (name) attributes['exception.type'] = name as string;
      if (message) attributes['exception.message'] = message as string;
      if (stack) attributes['exception.stacktrace'] = stack as string;
    }
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes);
  }
}

/** The SDK's attributeValueLengthLimit: strings (and strings in arrays) cut to it; none if not positive. */
function truncated(value: AttributeValue, limit: number | undefined): AttributeValue {
  if (limit === undefined || limit <= 0) return value;
  if (typeof value === 'string') return value.length <= limit ? value : value.substring(0, limit);
  if (Array.isArray(value)) return value.map((element: unknown) => (typeof element === 'string' && element.length > limit ? element.substring(0, limit) : element)) as AttributeValue;
  return value;
}
