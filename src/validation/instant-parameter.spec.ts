import fc from 'fast-check';
import { EARLIEST_INSTANT_MS, LATEST_INSTANT_MS } from '../common/instant';
import { RequestError } from '../errors/request-error';
import { instantParameter } from './instant-parameter';

describe('instantParameter', () => {
  it('rounds a finer instant up for a query parameter, and answers any text with a date or INVALID_REQUEST', () => {
    expect(instantParameter('updatedSince', '2026-01-31T12:00:00.0001Z')?.toISOString()).toBe('2026-01-31T12:00:00.001Z');
    expect(instantParameter('updatedSince', null)).toBeNull();
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer({ min: EARLIEST_INSTANT_MS - 86_400_000, max: LATEST_INSTANT_MS + 86_400_000 }).map((ms) => new Date(ms).toISOString())), (text) => {
        try {
          const at = instantParameter('updatedSince', text);
          expect(at!.getTime()).toBeGreaterThanOrEqual(EARLIEST_INSTANT_MS);
          expect(at!.getTime()).toBeLessThanOrEqual(LATEST_INSTANT_MS);
        } catch (error) {
          expect(error).toBeInstanceOf(RequestError);
          expect((error as RequestError).code).toBe('INVALID_REQUEST');
          expect((error as RequestError).message).toMatch(/^updatedSince must be /);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
