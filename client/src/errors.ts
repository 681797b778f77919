import type { RequestErrorCode } from './types';

/**
 * `code` of a ContactSyncError: a request-level code of the service, or one of the client's own:
 * NETWORK_ERROR (no HTTP answer), UNEXPECTED_RESPONSE (an answer that is not the contract's body).
 */
export type ContactSyncErrorCode = RequestErrorCode | 'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE';

/** A request-level failure: the service's error body, or no usable answer after the retries allowed. */
export class ContactSyncError extends Error {
  override readonly name = 'ContactSyncError';
  constructor(
    message: string,
    /** HTTP status, or null when no answer arrived. */
    readonly status: number | null,
    readonly code: ContactSyncErrorCode,
    /** The service's request id (`X-Request-Id`), or null when no answer arrived. */
    readonly request_id: string | null,
    /** How many requests the call sent before giving up (1 when it was not retried). */
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
