import { INSTANT_RANGE_TEXT, instantCeiling, readInstant } from '../common/instant';
import { invalidRequest } from '../errors/request-error';

/**
 * An instant query parameter (common/instant.ts reads it), rounded up to the stored millisecond
 * precision so that `stored ≥ it` keeps its meaning. Absent → null; a value that is no ISO 8601
 * instant with an offset, or one outside the instants the service stores, is 400 INVALID_REQUEST.
 */
export function instantParameter(name: string, value: string | null): Date | null {
  if (value === null) return null;
  const reading = readInstant(value);
  if (reading.ok) return instantCeiling(reading);
  throw invalidRequest(
    reading.problem === 'range'
      ? `${name} must be an instant from ${INSTANT_RANGE_TEXT}`
      : `${name} must be an ISO 8601 instant with an offset, e.g. 2026-01-31T12:00:00Z`,
  );
}
