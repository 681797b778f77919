import { DatabaseError } from 'pg';
import { RequestError } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { Prisma } from '../generated/prisma/client';
import { classifyDatabaseError, CommitOutcomeUnknownError, isUnavailable } from './database-errors';

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

describe('database error classification: Prisma Client', () => {
  // Real Prisma error classes; the shapes of the live ones are captured in test/faults/prisma-faults.e2e-spec.ts.
  const known = (code: string, message: string, meta?: Record<string, unknown>) =>
    new Prisma.PrismaClientKnownRequestError(message, { code, clientVersion: Prisma.prismaVersion.client, meta });

  it.each([
    ['P1001', "Can't reach database server at 127.0.0.1:5432"],
    ['P1017', 'Server has closed the connection.'],
    ['P2024', 'Timed out fetching a new connection from the connection pool.'],
    ['P2028', 'Transaction API error: Unable to start a transaction in the given time.'],
  ])('%s → 503 SERVICE_UNAVAILABLE with Retry-After', (code, message) => {
    const classified = classifyDatabaseError(known(code, message));
    expect(classified).toBeInstanceOf(RequestError);
    expect((classified as RequestError).code).toBe(RequestErrorCode.SERVICE_UNAVAILABLE);
  });

  it('P2028 that is a bug (transaction already closed) and P2002/P2025 stay what they are', () => {
    for (const error of [
      known('P2028', 'Transaction API error: Transaction already closed: A commit cannot be executed on a committed transaction.'),
      known('P2002', 'Unique constraint failed on the fields: (`email`)'),
      known('P2025', 'An operation failed because it depends on one or more records that were required but not found'),
    ]) {
      expect(classifyDatabaseError(error)).toBe(error);
    }
  });

  it('PrismaClientInitializationError that cannot reach the database → 503', () => {
    const error = new Prisma.PrismaClientInitializationError("Can't reach database server", Prisma.prismaVersion.client, 'P1001');
    expect(isUnavailable(error)).toBe(true);
  });

  it('a COMMIT whose outcome is unknown stays (500), even though its cause is a lost connection', () => {
    const error = new CommitOutcomeUnknownError(new Error('Connection terminated unexpectedly'));
    expect(isUnavailable(error)).toBe(true);
    expect(classifyDatabaseError(error)).toBe(error);
  });
});
