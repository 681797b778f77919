import { DomainError } from '../errors/domain-error';
import { RequestErrorCode } from '../errors/error-codes';
import { BATCH_LIMIT, parseBatchBody, parseDryRun, parseSingleContactBody } from './contact-input.shape';

/** The request-level error a call throws (fails the test when it throws nothing). */
function errorOf(call: () => unknown): DomainError {
  try {
    call();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

const contact = (extra: Record<string, unknown> = {}) => ({ email: 'a@example.com', listIds: ['l1'], ...extra });

describe('parseSingleContactBody', () => {
  it.each([[[]], [null], ['a@example.com'], [42], [true]])('refuses a body that is not an object: %p', (body) => {
    expect(errorOf(() => parseSingleContactBody(body)).code).toBe(RequestErrorCode.INVALID_REQUEST);
  });

  it('keeps email unchecked (rule 1 decides) and defaults overwrite to false', () => {
    expect(parseSingleContactBody({ email: 5 })).toEqual({
      email: 5,
      listIds: undefined,
      fields: new Map(),
      overwrite: false,
    });
    expect(parseSingleContactBody({ email: null }).email).toBeNull();
    expect(parseSingleContactBody({}).email).toBeUndefined();
  });

  it('names the path without a prefix', () => {
    expect(errorOf(() => parseSingleContactBody(contact({ listIds: [1] }))).message).toBe(
      'listIds must be an array of strings',
    );
    expect(errorOf(() => parseSingleContactBody(contact({ fields: [] }))).message).toBe('fields must be an object');
    expect(errorOf(() => parseSingleContactBody(contact({ overwrite: 'yes' }))).message).toBe(
      'overwrite must be a boolean',
    );
  });

  it.each(['listIds', 'fields', 'overwrite'])('treats null %s as present and a shape error', (key) => {
    const error = errorOf(() => parseSingleContactBody(contact({ [key]: null })));
    expect(error.code).toBe(RequestErrorCode.INVALID_REQUEST);
    expect(error.message).toMatch(new RegExp(`^${key} `));
  });

  it('refuses an unknown key and names it', () => {
    const error = errorOf(() => parseSingleContactBody(contact({ list_ids: ['x'] })));
    expect(error.code).toBe(RequestErrorCode.INVALID_REQUEST);
    expect(error.message).toContain('"list_ids"');
  });

  it('keeps a __proto__ field key as an ordinary key without touching a prototype', () => {
    const body = JSON.parse('{"email":"a@example.com","listIds":["l"],"fields":{"__proto__":{"polluted":1},"firstName":"A"}}');
    const input = parseSingleContactBody(body);
    expect([...input.fields.keys()]).toEqual(['__proto__', 'firstName']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseBatchBody', () => {
  it.each([
    ['an array', [contact()]],
    ['null', null],
    ['a bare contact', contact()],
    ['no contacts key', {}],
    ['contacts not an array', { contacts: contact() }],
    ['an empty array', { contacts: [] }],
    ['another key beside contacts', { contacts: [contact()], dryRun: true }],
  ])('refuses %s with INVALID_REQUEST', (_, body) => {
    expect(errorOf(() => parseBatchBody(body)).code).toBe(RequestErrorCode.INVALID_REQUEST);
  });

  it('counts more than 50 entries before looking at them', () => {
    const error = errorOf(() => parseBatchBody({ contacts: Array.from({ length: BATCH_LIMIT + 1 }, () => 'junk') }));
    expect(error.code).toBe(RequestErrorCode.BATCH_LIMIT_EXCEEDED);
    expect(parseBatchBody({ contacts: Array.from({ length: BATCH_LIMIT }, () => contact()) })).toHaveLength(BATCH_LIMIT);
  });

  it('names the path of the bad entry', () => {
    const contacts = [contact(), contact(), contact(), contact({ listIds: 'l1' })];
    expect(errorOf(() => parseBatchBody({ contacts })).message).toBe('contacts[3].listIds must be an array of strings');
    expect(errorOf(() => parseBatchBody({ contacts: [contact(), 7] })).message).toBe('contacts[1] must be an object');
    expect(errorOf(() => parseBatchBody({ contacts: [contact({ fields: null })] })).message).toBe(
      'contacts[0].fields must be an object',
    );
    expect(errorOf(() => parseBatchBody({ contacts: [contact({ overwrite: 1 })] })).message).toBe(
      'contacts[0].overwrite must be a boolean',
    );
  });
});

describe('parseDryRun', () => {
  it('accepts true, false and absent', () => {
    expect(parseDryRun('true')).toBe(true);
    expect(parseDryRun('false')).toBe(false);
    expect(parseDryRun(undefined)).toBe(false);
  });

  it.each([[''], ['1'], ['TRUE'], ['yes'], [['true', 'true']]])('refuses %p', (value) => {
    expect(errorOf(() => parseDryRun(value)).code).toBe(RequestErrorCode.INVALID_REQUEST);
  });
});
