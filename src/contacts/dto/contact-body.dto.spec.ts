import type { ArgumentMetadata } from '@nestjs/common';
import { RequestError } from '../../errors/request-error';
import { RequestErrorCode } from '../../errors/error-codes';
import { RequestValidationPipe } from '../../validation/request-validation.pipe';
import { BATCH_LIMIT, type ContactInput } from '../contact-input.shape';
import { parseDryRun } from '../dry-run.pipe';
import { BatchContactsDto } from './batch-contacts.dto';
import { CreateContactDto } from './create-contact.dto';

/** The bodies as the controller receives them: through the global validation pipe. */
const pipe = new RequestValidationPipe();
const asBody = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });
const parseSingleContactBody = async (body: unknown): Promise<ContactInput> => {
  const { email, listIds, fields, overwrite } = (await pipe.transform(body, asBody(CreateContactDto))) as CreateContactDto;
  return { email, listIds, fields, overwrite };
};
const parseBatchBody = async (body: unknown) => ((await pipe.transform(body, asBody(BatchContactsDto))) as BatchContactsDto).contacts;

/** The request-level error a call throws (fails the test when it throws nothing). */
async function errorOf(call: () => unknown): Promise<RequestError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof RequestError) return error;
    throw error;
  }
  throw new Error('expected a RequestError');
}

const contact = (extra: Record<string, unknown> = {}) => ({ email: 'a@example.com', listIds: ['l1'], ...extra });

describe('parseSingleContactBody', () => {
  it.each([[[]], [null], ['a@example.com'], [42], [true]])('refuses a body that is not an object: %p', async (body) => {
    expect((await errorOf(() => parseSingleContactBody(body))).code).toBe(RequestErrorCode.INVALID_REQUEST);
  });

  it('keeps email unchecked (rule 1 decides) and defaults overwrite to false', async () => {
    expect(await parseSingleContactBody({ email: 5 })).toEqual({
      email: 5,
      listIds: undefined,
      fields: new Map(),
      overwrite: false,
    });
    expect((await parseSingleContactBody({ email: null })).email).toBeNull();
    expect((await parseSingleContactBody({})).email).toBeUndefined();
  });

  it('names the path without a prefix', async () => {
    expect((await errorOf(() => parseSingleContactBody(contact({ listIds: [1] })))).message).toBe(
      'listIds must be an array of strings',
    );
    expect((await errorOf(() => parseSingleContactBody(contact({ fields: [] })))).message).toBe('fields must be an object');
    expect((await errorOf(() => parseSingleContactBody(contact({ overwrite: 'yes' })))).message).toBe(
      'overwrite must be a boolean',
    );
  });

  it.each(['listIds', 'fields', 'overwrite'])('treats null %s as present and a shape error', async (key) => {
    const error = await errorOf(() => parseSingleContactBody(contact({ [key]: null })));
    expect(error.code).toBe(RequestErrorCode.INVALID_REQUEST);
    expect(error.message).toMatch(new RegExp(`^${key} `));
  });

  it('refuses an unknown key and names it', async () => {
    const error = await errorOf(() => parseSingleContactBody(contact({ list_ids: ['x'] })));
    expect(error.code).toBe(RequestErrorCode.INVALID_REQUEST);
    expect(error.message).toBe('Unknown key: list_ids');
  });

  it('keeps a __proto__ field key as an ordinary key without touching a prototype', async () => {
    const body = JSON.parse('{"email":"a@example.com","listIds":["l"],"fields":{"__proto__":{"polluted":1},"firstName":"A"}}');
    const input = await parseSingleContactBody(body);
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
  ])('refuses %s with INVALID_REQUEST', async (_, body) => {
    expect((await errorOf(() => parseBatchBody(body))).code).toBe(RequestErrorCode.INVALID_REQUEST);
  });

  it('counts more than 50 entries before looking at them', async () => {
    const error = await errorOf(() => parseBatchBody({ contacts: Array.from({ length: BATCH_LIMIT + 1 }, () => 'junk') }));
    expect(error.code).toBe(RequestErrorCode.BATCH_LIMIT_EXCEEDED);
    expect(await parseBatchBody({ contacts: Array.from({ length: BATCH_LIMIT }, () => contact()) })).toHaveLength(BATCH_LIMIT);
  });

  it('refuses more than 50 entries without reading, copying or transforming any of them', async () => {
    const touched: string[] = [];
    // An entry that records every operation on it (a read, a key listing, a prototype lookup...).
    const spyEntry = () =>
      new Proxy(contact(), {
        get: (target, key, receiver) => (touched.push(`get ${String(key)}`), Reflect.get(target, key, receiver)),
        ownKeys: (target) => (touched.push('ownKeys'), Reflect.ownKeys(target)),
        getOwnPropertyDescriptor: (target, key) => (touched.push('descriptor'), Reflect.getOwnPropertyDescriptor(target, key)),
        getPrototypeOf: (target) => (touched.push('prototype'), Reflect.getPrototypeOf(target)),
        has: (target, key) => (touched.push('has'), Reflect.has(target, key)),
      });
    const error = await errorOf(() => parseBatchBody({ contacts: Array.from({ length: BATCH_LIMIT + 1 }, spyEntry) }));
    expect(error.code).toBe(RequestErrorCode.BATCH_LIMIT_EXCEEDED);
    expect(touched).toEqual([]);
    // Within the limit the same entries are read (the spy sees them), and parsed.
    expect(await parseBatchBody({ contacts: Array.from({ length: BATCH_LIMIT }, spyEntry) })).toHaveLength(BATCH_LIMIT);
    expect(touched).not.toEqual([]);
  });

  it('names the path of the bad entry', async () => {
    const contacts = [contact(), contact(), contact(), contact({ listIds: 'l1' })];
    expect((await errorOf(() => parseBatchBody({ contacts }))).message).toBe('contacts[3].listIds must be an array of strings');
    expect((await errorOf(() => parseBatchBody({ contacts: [contact(), 7] }))).message).toBe('contacts[1] must be an object');
    expect((await errorOf(() => parseBatchBody({ contacts: [contact({ fields: null })] }))).message).toBe(
      'contacts[0].fields must be an object',
    );
    expect((await errorOf(() => parseBatchBody({ contacts: [contact({ overwrite: 1 })] }))).message).toBe(
      'contacts[0].overwrite must be a boolean',
    );
  });
});

describe('unknown keys, named by their path', () => {
  it.each(['__proto__', 'constructor', 'tags'])('refuses %s at the top level of a contact (class-transformer would drop the first two)', async (key) => {
    const body = JSON.parse(`{"email":"a@example.com","listIds":["l"],${JSON.stringify(key)}:{"overwrite":true}}`);
    expect((await errorOf(() => parseSingleContactBody(body))).message).toBe(`Unknown key: ${key}`);
    const batch = JSON.parse(`{"contacts":[{"email":"a@example.com"},{"email":"b@example.com",${JSON.stringify(key)}:1}]}`);
    expect((await errorOf(() => parseBatchBody(batch))).message).toBe(`Unknown key: contacts[1].${key}`);
  });

  it('names every unknown key, quoting one that is not an identifier', async () => {
    const error = await errorOf(() => parseBatchBody({ contacts: [contact({ tags: 1, 'a b': 2 })] }));
    expect(error.message).toBe('Unknown keys: contacts[0].tags, contacts[0]["a b"]');
  });

  it('keeps constructor and prototype keys of fields, and the values as sent', async () => {
    const body = JSON.parse('{"email":"a@example.com","fields":{"constructor":1,"prototype":{"a":[1]}}}');
    const input = await parseSingleContactBody(body);
    expect([...input.fields.entries()]).toEqual([
      ['constructor', 1],
      ['prototype', { a: [1] }],
    ]);
  });

  it('a constructor key anywhere in a body is data: no crash, email stays rule 1, fields keep their values', async () => {
    const body = JSON.parse('{"email":{"constructor":1},"listIds":["l"],"fields":{"constructor":"x","a":{"constructor":"y"}}}');
    const input = await parseSingleContactBody(body);
    expect(typeof input.email).toBe('object'); // not a string: INVALID_EMAIL
    expect([...input.fields.entries()]).toEqual([
      ['constructor', 'x'],
      ['a', JSON.parse('{"constructor":"y"}')],
    ]);
    const error = await errorOf(() => parseSingleContactBody(JSON.parse('{"listIds":[{"constructor":1}]}')));
    expect(error.message).toBe('listIds must be an array of strings');
  });

  it('an unknown key beside contacts comes before the batch count', async () => {
    const error = await errorOf(() => parseBatchBody({ contacts: Array.from({ length: BATCH_LIMIT + 1 }, () => 'junk'), x: 1 }));
    expect({ code: error.code, message: error.message }).toEqual({ code: RequestErrorCode.INVALID_REQUEST, message: 'Unknown key: x' });
  });
});

describe('parseDryRun', () => {
  it('accepts true, false and absent', () => {
    expect(parseDryRun('true')).toBe(true);
    expect(parseDryRun('false')).toBe(false);
    expect(parseDryRun(undefined)).toBe(false);
  });

  it.each([[''], ['1'], ['TRUE'], ['yes'], [['true', 'true']]])('refuses %p', async (value) => {
    expect((await errorOf(() => parseDryRun(value))).code).toBe(RequestErrorCode.INVALID_REQUEST);
  });
});
