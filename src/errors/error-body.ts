import { RequestErrorCode } from './error-codes';

/** The request-level error body of contract section 8. */
export interface RequestErrorBody {
  request_id: string;
  error: { code: RequestErrorCode; message: string };
}
