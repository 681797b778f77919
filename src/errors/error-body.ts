import { RequestErrorCode } from './error-codes';

/** The request-level error body (docs/api.md#request-level-errors). */
export interface RequestErrorBody {
  request_id: string;
  error: { code: RequestErrorCode; message: string };
}
