import { context, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { UNSAMPLED_REQUEST_SPAN } from '../logging/logging';

/**
 * The first middleware. An unsampled request (9 in 10 at a 0.1 ratio, or a caller's flags 00) goes on without its
 * non-recording HTTP span in the context: pg and ioredis (`requireParentSpan`) then build no span nothing would record.
 * Its ids stay under another key for its log lines (traceFields). Sampled, or tracing off (no span): unchanged.
 */
export const unsampledRequestsUntraced: RequestHandler = (_req, _res, next) => {
  const span = trace.getActiveSpan();
  if (span === undefined || span.isRecording()) return next();
  context.with(trace.deleteSpan(context.active()).setValue(UNSAMPLED_REQUEST_SPAN, span.spanContext()), next);
};
