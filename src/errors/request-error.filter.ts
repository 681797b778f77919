import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger, NotFoundException, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { requestIdOf } from '../common/request-id';
import { RequestError, noRoute } from './request-error';
import { RequestErrorCode } from './error-codes';
import { sendRequestError } from './send-request-error';

/**
 * The database's classification of its failures (database/database-errors.ts), provided by the
 * database module: a token here so that errors/ does not import the database layer.
 */
export const DATABASE_ERROR_CLASSIFIER = Symbol('DATABASE_ERROR_CLASSIFIER');
export type DatabaseErrorClassifier = (error: unknown) => unknown;

/**
 * The one place that renders request-level errors (docs/api.md#request-level-errors). Everything thrown on the
 * request path ends here; anything that is not a RequestError is logged in full and answered as
 * 500 INTERNAL_ERROR with a message that carries no internals.
 */
@Catch()
export class RequestErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(@Optional() @Inject(DATABASE_ERROR_CLASSIFIER) private readonly classifyDatabaseError?: DatabaseErrorClassifier) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const error = this.toRequestError(exception, req);

    if (res.headersSent) {
      // Nothing more can be sent; make sure the connection does not hang.
      res.end();
      return;
    }
    sendRequestError(req, res, error);
  }

  private toRequestError(thrown: unknown, req: Request): RequestError {
    // A database failure that reached here unclassified (Prisma Client's errors): 503 or as it is.
    const exception = thrown instanceof RequestError || !this.classifyDatabaseError ? thrown : this.classifyDatabaseError(thrown);
    if (exception instanceof RequestError) return exception;
    // Nest's router answers an unknown route (or a known path with another method) this way.
    if (exception instanceof NotFoundException) {
      return noRoute(req.method);
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      // Framework-raised client errors (none are expected on our routes) keep their meaning.
      return new RequestError(RequestErrorCode.INVALID_REQUEST, exception.message);
    }
    this.logger.error({ err: exception, requestId: requestIdOf(req) }, 'Unhandled error');
    return new RequestError(RequestErrorCode.INTERNAL_ERROR, 'The server failed to process the request');
  }
}
