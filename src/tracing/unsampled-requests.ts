import { context, trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { UNSAMPLED_REQUEST_SPAN } from '../logging/logging';

/**
 * The first middleware. A request whose trace is not sampled (9 in 10 at a 0.1 ratio, or a caller's
 * `traceparent` flags 00) runs the rest of its handling without its non-recording HTTP span in the
 * active context: the pg and ioredis instrumentations (`requireParentSpan`) then make no span for
 * its statements and commands, spans that nothing would record. The span's ids stay in the context
 * under another key for its log lines (`traceFields`). A sampled request, and every request with
 * tracing off (no active span), goes on unchanged. Only OpenTelemetry's API is loaded here.
 */
export function unsampledRequestsUntraced(_req: Request, _res: Response, next: NextFunction): void {
  const span = trace.getActiveSpan();
  if (span === undefined || span.isRecording()) return next();
  context.with(trace.deleteSpan(context.active()).setValue(UNSAMPLED_REQUEST_SPAN, span.spanContext()), next);
}
