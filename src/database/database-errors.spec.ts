import { DatabaseError } from 'pg';
import { RequestError } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { Prisma } from '../generated/prisma/client';
import {
  classifyDatabaseError,
  CONNECTION_MESSAGES,
  errorLayers,
  faultCause,
  faultMessage,
  isUnavailable,
  lockWaitTimedOut,
  serviceUnavailable,
} from './database-errors';

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

describe('database error classification: a deadlock', () => {
  it('40P01 → 503 SERVICE_UNAVAILABLE with Retry-After: PostgreSQL rolled this side back, a retry succeeds', () => {
    const classified = classifyDatabaseError(withCode('40P01'), false);
    expect(classified).toBeInstanceOf(RequestError);
    expect((classified as RequestError).code).toBe(RequestErrorCode.SERVICE_UNAVAILABLE);
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
  ])('%s → 503 SERVICE_UNAVAILABLE with Retry-After', (code, message) => {
    const classified = classifyDatabaseError(known(code, message));
    expect(classified).toBeInstanceOf(RequestError);
    expect((classified as RequestError).code).toBe(RequestErrorCode.SERVICE_UNAVAILABLE);
  });

  it('P2002/P2025 stay what they are', () => {
    for (const error of [
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
});

describe('the cause of a fault, for the log lines (faultCause, faultMessage)', () => {
  const known = (code: string, message: string, meta?: Record<string, unknown>) =>
    new Prisma.PrismaClientKnownRequestError(message, { code, clientVersion: Prisma.prismaVersion.client, meta });

  it("a 503's cause: its socket code or SQLSTATE and the driver's words, not the answer's \"retry later\"", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(faultCause(serviceUnavailable(refused))).toBe('ECONNREFUSED');
    expect(faultMessage(serviceUnavailable(refused))).toBe('connect ECONNREFUSED 127.0.0.1:5432');
    const lock = Object.assign(new DatabaseError('canceling statement due to lock timeout', 0, 'error'), { code: '55P03' });
    expect(faultCause(lockWaitTimedOut(lock))).toBe('55P03');
    expect(faultMessage(lockWaitTimedOut(lock))).toBe('canceling statement due to lock timeout');
    expect(faultCause(new Error('Connection terminated unexpectedly'))).toBe('connection terminated');
    expect(faultCause(new Error('timeout exceeded when trying to connect'))).toBe('pool wait timeout');
  });

  it.each(CONNECTION_MESSAGES)('node-postgres\' "%s" (a 503) has a cause of its own, not "unclassified"', (words) => {
    const error = new Error(`${words} (as node-postgres says it)`);
    expect(isUnavailable(error)).toBe(true);
    expect(faultCause(serviceUnavailable(error))).not.toBe('unclassified');
  });

  it('a pooled client broken between checkout and query (seen in every PostgreSQL stop): "connection lost"', () => {
    expect(faultCause(new Error('Client has encountered a connection error and is not queryable'))).toBe('connection lost');
    expect(faultCause(new Error('Client was closed and is not queryable'))).toBe('client closed');
    expect(faultCause(new Error('Cannot use a pool after calling end on the pool'))).toBe('pool closed');
  });

  it("through Prisma's wrapping: the SQLSTATE under a driver-adapter error, Prisma's code only when nothing under it says more", () => {
    const wrapped = known('P2010', 'Invalid `prisma.$queryRaw()` invocation:\n\n\nRaw query failed. Code: `57P01`.', {
      driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'postgres', originalCode: '57P01', originalMessage: 'terminating connection due to administrator command' } },
    });
    expect(faultCause(wrapped)).toBe('57P01');
    expect(faultMessage(wrapped)).toBe('terminating connection due to administrator command');
    expect(faultCause(known('P1001', "Can't reach database server at 127.0.0.1:5432"))).toBe('P1001');
    expect(faultMessage(known('P1001', "Can't reach database server\n at 127.0.0.1:5432"))).toBe("Can't reach database server at 127.0.0.1:5432");
  });
});

describe('errorLayers: the one walk down an error\'s cause chain', () => {
  it("reads Prisma's wrapping: the known error, its meta.driverAdapterError, and adapter-pg's mapping under it", () => {
    const mapping = { kind: 'TransactionWriteConflict', originalCode: '40001', originalMessage: 'could not serialize access' };
    const adapterError = { name: 'DriverAdapterError', cause: mapping };
    const wrapped = new Prisma.PrismaClientKnownRequestError('Raw query failed.', {
      code: 'P2010',
      clientVersion: Prisma.prismaVersion.client,
      meta: { driverAdapterError: adapterError },
    });
    expect(errorLayers(wrapped)).toEqual([wrapped, adapterError, mapping]);
  });

  it('follows any cause, each object once (a cycle ends), at most 4 levels under the error', () => {
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    first.cause = second;
    expect(errorLayers(first)).toEqual([first, second]);

    const chain = Array.from({ length: 7 }, (_, i) => new Error(`level ${i}`));
    chain.forEach((error, i) => (error.cause = chain[i + 1]));
    expect(errorLayers(chain[0]).map((layer) => layer.message)).toEqual(['level 0', 'level 1', 'level 2', 'level 3', 'level 4']);
  });

  it('has no layers for what is not an object', () => {
    expect(errorLayers('text')).toEqual([]);
    expect(errorLayers(null)).toEqual([]);
  });
});
