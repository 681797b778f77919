import { DatabaseError } from 'pg';
import { RequestError } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { classifyDatabaseError, isUnavailable } from './database-errors';

const withCode = (code: string) => Object.assign(new DatabaseError('could not open file "base/16384/2619": No such file or directory', 0, 'error'), { code });

describe('database error classification: the server\'s I/O errors (SQLSTATE class 58)', () => {
  it.each(['58000', '58030', '58P01', '58P02'])('%s → 503 SERVICE_UNAVAILABLE with Retry-After (nothing was committed)', (code) => {
    expect(isUnavailable(withCode(code))).toBe(true);
    const classified = classifyDatabaseError(withCode(code), false);
    expect(classified).toBeInstanceOf(RequestError);
    expect((classified as RequestError).code).toBe(RequestErrorCode.SERVICE_UNAVAILABLE);
    expect((classified as RequestError).headers['Retry-After']).toMatch(/^\d+$/);
  });

  it('during COMMIT the outcome is unknown: the error stays (500), even for class 58', () => {
    const error = withCode('58030');
    expect(classifyDatabaseError(error, true)).toBe(error);
  });

  it('other database errors stay what they are (a bug is a 500, not "retry later")', () => {
    expect(isUnavailable(withCode('42P01'))).toBe(false);
    expect(isUnavailable(withCode('XX000'))).toBe(false);
  });
});
