import { bootApp, Org, type Res, uniqueEmail } from './helpers';

/**
 * docs/api.md#request-level-errors: 500 is for server-side failures only; no input of any shape may cause one, and no
 * response carries a stack trace or SQL. Each odd body states the answer the contract implies.
 */
describe('odd inputs never make the contacts endpoints answer 500', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeAll(async () => {
    ({ org, list } = await Org.withList(app.t, [
      { key: 'bio', type: 'text' },
      { key: 'age', type: 'number' },
      { key: 'birthday', type: 'date' },
    ]));
  });

  const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

  /** [name, raw contact JSON builder, expected: 'INVALID_REQUEST' | per-contact code | 'ok'] */
  const cases: Array<[string, (e: string, l: string) => string, string]> = [
    ['deeply nested array as a field value', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"firstName":${deepArray(5000)}}}`, 'FIELD_TYPE_MISMATCH'],
    ['deeply nested object as a custom text value', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"bio":${deepObject(5000)}}}`, 'FIELD_TYPE_MISMATCH'],
    ['deeply nested object as the email', (_e, l) => `{"email":${deepObject(5000)},"listIds":["${l}"]}`, 'INVALID_EMAIL'],
    ['deeply nested array as listIds', (e) => `{"email":"${e}","listIds":${deepArray(5000)}}`, 'INVALID_REQUEST'],
    ['deeply nested object as fields', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":${deepObject(5000)}}`, 'UNKNOWN_FIELD'],
    ['huge number as the email', (_e, l) => `{"email":1e999,"listIds":["${l}"]}`, 'INVALID_EMAIL'],
    ['huge integer as a number field', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"age":${'9'.repeat(400)}}}`, 'FIELD_TYPE_MISMATCH'],
    ['-1e999 as a number field', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"age":-1e999}}`, 'FIELD_TYPE_MISMATCH'],
    ['huge number as a text field', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"bio":1e999}}`, 'FIELD_TYPE_MISMATCH'],
    ['a tiny number as a number field', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"age":1e-400}}`, 'ok'],
    ['huge number as listIds', (e) => `{"email":"${e}","listIds":1e999}`, 'INVALID_REQUEST'],
    ['a string in place of listIds', (e, l) => `{"email":"${e}","listIds":"${l}"}`, 'INVALID_REQUEST'],
    ['a string in place of fields', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":"firstName"}`, 'INVALID_REQUEST'],
    ['numbers in listIds', (e) => `{"email":"${e}","listIds":[1,2,3]}`, 'INVALID_REQUEST'],
    ['mixed non-strings in listIds', (e, l) => `{"email":"${e}","listIds":["${l}",null,{},[],true]}`, 'INVALID_REQUEST'],
    ['10,000 list IDs', (e, l) => `{"email":"${e}","listIds":${JSON.stringify(Array(10000).fill(l))}}`, 'TOO_MANY_LIST_IDS'],
    ['a 100,000-character list ID', (e) => `{"email":"${e}","listIds":["${'z'.repeat(100000)}"]}`, 'INVALID_LIST'],
    ['a list ID holding U+0000', (e) => `{"email":"${e}","listIds":["\\u0000"]}`, 'INVALID_LIST'],
    ['a list ID with a lone surrogate', (e) => `{"email":"${e}","listIds":["\\ud800"]}`, 'INVALID_LIST'],
    ['a list ID that looks like SQL', (e) => `{"email":"${e}","listIds":["' OR 1=1 --"]}`, 'INVALID_LIST'],
    ['a 500,000-character email', (_e, l) => `{"email":"${'a'.repeat(500000)}@example.com","listIds":["${l}"]}`, 'INVALID_EMAIL'],
    ['an email holding U+0000', (_e, l) => `{"email":"a\\u0000@example.com","listIds":["${l}"]}`, 'INVALID_EMAIL'],
    ['an email with a lone surrogate', (_e, l) => `{"email":"a\\udc00@example.com","listIds":["${l}"]}`, 'INVALID_EMAIL'],
    ['an email that looks like SQL', (_e, l) => `{"email":"a'; DROP TABLE contacts; --@example.com","listIds":["${l}"]}`, 'INVALID_EMAIL'],
    ['a standard field holding U+0000', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"city":"\\u0000"}}`, 'FIELD_TYPE_MISMATCH'],
    ['a custom text field holding U+0000', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"bio":"x\\u0000y"}}`, 'FIELD_TYPE_MISMATCH'],
    ['a date holding U+0000', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"birthday":"\\u0000"}}`, 'FIELD_TYPE_MISMATCH'],
    ['2,000 unknown field keys', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{${Array.from({ length: 2000 }, (_, i) => `"k${i}":1`).join(',')}}}`, 'UNKNOWN_FIELD'],
    ['a field key of 100,000 characters', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"${'k'.repeat(100000)}":1}}`, 'UNKNOWN_FIELD'],
    ['an empty field key', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"":1}}`, 'UNKNOWN_FIELD'],
    ['a field key holding U+0000', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"a\\u0000":1}}`, 'UNKNOWN_FIELD'],
    ['Mongo-style operator as a value', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"firstName":{"$ne":null}}}`, 'FIELD_TYPE_MISMATCH'],
    ['duplicate keys in the object', (e, l) => `{"email":"x","email":"${e}","listIds":["${l}"]}`, 'any'],
    ['an empty object', () => `{}`, 'INVALID_EMAIL'],
    ['an object holding only an unknown key', () => `{"x":1}`, 'INVALID_REQUEST'],
    ['overwrite as an object', (e, l) => `{"email":"${e}","listIds":["${l}"],"overwrite":{"a":1}}`, 'INVALID_REQUEST'],
    ['a custom text value with a lone surrogate', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"bio":"\\ud800x"}}`, 'any'],
    ['a standard value with a lone surrogate', (e, l) => `{"email":"${e}","listIds":["${l}"],"fields":{"city":"\\udfff"}}`, 'any'],
  ];

  function check(res: Res, expected: string, where: string) {
    expect(res.status < 500 ? 'not 5xx' : { status: res.status, body: res.body }).toBe('not 5xx');
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/at [\w.<>]+ \(|node_modules|prisma|SELECT |INSERT |violates/i);
    if (expected === 'any') return;
    const row = where === 'batch' ? res.body.results?.[0] : res.body;
    if (expected === 'INVALID_REQUEST') {
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    } else if (expected === 'ok') {
      expect(['created', 'updated', 'unchanged']).toContain(row?.status);
    } else {
      expect({ status: where === 'batch' ? res.status : res.status, code: row?.code }).toEqual({ status: where === 'batch' ? 200 : 400, code: expected });
    }
  }

  it.each(cases)('POST /contacts: %s', async (_name, build, expected) => {
    const res = await org.postRaw('/api/v2/contacts', build(uniqueEmail(), list));
    check(res, expected, 'single');
  });

  it.each(cases)('POST /contacts/batch: %s', async (_name, build, expected) => {
    const res = await org.postRaw('/api/v2/contacts/batch', `{"contacts":[${build(uniqueEmail(), list)}]}`);
    check(res, expected, 'batch');
  });

  it.each([
    ['deeply nested contacts', `{"contacts":${deepArray(10000)}}`],
    ['contacts as a huge number', `{"contacts":1e999}`],
    ['contacts as a deep object', `{"contacts":${deepObject(10000)}}`],
    ['a deeply nested body', deepArray(20000)],
    ['contacts holding 50 deep arrays', `{"contacts":[${Array(50).fill(deepArray(1000)).join(',')}]}`],
    ['a body of only whitespace', '   \n  '],
    ['a UTF-8 BOM then JSON', '\ufeff{"contacts":[]}'],
    ['not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
  ])('POST /contacts/batch with %s → 4xx, not 500', async (_name, raw) => {
    const res = await org.postBytes('/api/v2/contacts/batch', typeof raw === 'string' ? Buffer.from(raw) : raw);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error?.code).toBeDefined();
  });

  it.each([
    ['a deeply nested body', deepArray(20000)],
    ['a deep object body', deepObject(20000)],
    ['not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
    ['a body of only whitespace', '   '],
  ])('POST /contacts with %s → 400 INVALID_REQUEST', async (_name, raw) => {
    const res = await org.postBytes('/api/v2/contacts', typeof raw === 'string' ? Buffer.from(raw) : raw);
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 400, code: 'INVALID_REQUEST' });
  });

  it('GET /contacts/{email} with odd values never answers 500', async () => {
    for (const v of ['%00', '%ud800', "'%20OR%201=1--", 'a'.repeat(5000), '%E2%80%AE@example.com', '..%2F..%2Fetc%2Fpasswd']) {
      const res = await org.get(`/api/v2/contacts/${v}`);
      expect({ v, status: res.status < 500 }).toEqual({ v, status: true });
    }
  });
});
