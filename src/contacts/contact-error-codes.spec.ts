import { CONTACT_ERROR_CODES, ContactErrorCode, singleEndpointCodes, singleEndpointStatusOf } from './contact-error-codes';
import { SUPPRESSION_REASONS } from './contact-rules';
import { CUSTOM_FIELD_TYPES } from '../custom-fields/field-definitions';

describe('the lists of values', () => {
  it('per-contact codes in the rule order of docs/api.md#rules-and-codes', () => {
    expect(CONTACT_ERROR_CODES).toEqual([
      'INVALID_EMAIL',
      'DUPLICATE_IN_REQUEST',
      'EMPTY_LIST_IDS',
      'TOO_MANY_LIST_IDS',
      'INVALID_LIST',
      'UNKNOWN_FIELD',
      'FIELD_TYPE_MISMATCH',
      'REQUIRED_FIELD_MISSING',
      'SUPPRESSED_EMAIL',
      'DUPLICATE_EMAIL',
    ]);
  });

  it('the single endpoint answers 409 for DUPLICATE_EMAIL and SUPPRESSED_EMAIL, 400 otherwise; DUPLICATE_IN_REQUEST never', () => {
    expect(singleEndpointCodes(409)).toEqual([ContactErrorCode.SUPPRESSED_EMAIL, ContactErrorCode.DUPLICATE_EMAIL]);
    expect(singleEndpointCodes(400)).toHaveLength(CONTACT_ERROR_CODES.length - 3);
    expect(singleEndpointStatusOf(ContactErrorCode.DUPLICATE_IN_REQUEST)).toBeNull();
  });

  it('suppression reasons and custom field types come from the database enums', () => {
    expect(SUPPRESSION_REASONS).toEqual(['bounced', 'complained', 'unsubscribed']);
    expect(CUSTOM_FIELD_TYPES).toEqual(['text', 'number', 'boolean', 'date', 'select']);
  });
});
