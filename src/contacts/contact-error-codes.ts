import { assertUnreachable } from '../errors/error-codes';

/**
 * Per-contact codes (docs/api.md#rules-and-codes), in rule order: values in the results, not exceptions.
 * The rules, the results, the OpenAPI document and the tests all import them from here.
 */
export enum ContactErrorCode {
  INVALID_EMAIL = 'INVALID_EMAIL',
  DUPLICATE_IN_REQUEST = 'DUPLICATE_IN_REQUEST',
  EMPTY_LIST_IDS = 'EMPTY_LIST_IDS',
  TOO_MANY_LIST_IDS = 'TOO_MANY_LIST_IDS',
  INVALID_LIST = 'INVALID_LIST',
  UNKNOWN_FIELD = 'UNKNOWN_FIELD',
  FIELD_TYPE_MISMATCH = 'FIELD_TYPE_MISMATCH',
  REQUIRED_FIELD_MISSING = 'REQUIRED_FIELD_MISSING',
  SUPPRESSED_EMAIL = 'SUPPRESSED_EMAIL',
  DUPLICATE_EMAIL = 'DUPLICATE_EMAIL',
}

/** Every per-contact code, in rule order. */
export const CONTACT_ERROR_CODES: readonly ContactErrorCode[] = Object.values(ContactErrorCode);

/**
 * HTTP status of POST /api/v2/contacts when the one contact fails with `code` (batch rows are
 * always inside a 200). `null`: the code cannot occur on the single endpoint. The compiler flags a
 * code without a status.
 */
export function singleEndpointStatusOf(code: ContactErrorCode): 400 | 409 | null {
  switch (code) {
    case ContactErrorCode.DUPLICATE_IN_REQUEST:
      return null; // needs two rows
    case ContactErrorCode.INVALID_EMAIL:
    case ContactErrorCode.EMPTY_LIST_IDS:
    case ContactErrorCode.TOO_MANY_LIST_IDS:
    case ContactErrorCode.INVALID_LIST:
    case ContactErrorCode.UNKNOWN_FIELD:
    case ContactErrorCode.FIELD_TYPE_MISMATCH:
    case ContactErrorCode.REQUIRED_FIELD_MISSING:
      return 400;
    case ContactErrorCode.SUPPRESSED_EMAIL:
    case ContactErrorCode.DUPLICATE_EMAIL:
      return 409;
    default:
      return assertUnreachable(code);
  }
}

/** The per-contact codes POST /api/v2/contacts answers with `status` (for the OpenAPI document and tests). */
export const singleEndpointCodes = (status: 400 | 409): ContactErrorCode[] =>
  CONTACT_ERROR_CODES.filter((code) => singleEndpointStatusOf(code) === status);
