import { planContact, type RuleContext, screenContacts } from '../../contacts/contact-rules';
import type { ContactInput } from '../../contacts/contact-input.shape';
import type { CustomFieldDefinition } from '../../custom-fields/field-definitions';
import { RequestError } from '../../errors/request-error';
import { type CsvHeader, type FieldDefinitions, readCsvHeader, readCsvRecord, readNdjsonRow, type RowRead } from './row-reading';

const field = (key: string, type: CustomFieldDefinition['type'], options: string[] = []): CustomFieldDefinition => ({
  key,
  type,
  required: false,
  defaultValue: null,
  options,
});

const FIELDS: FieldDefinitions = new Map(
  [field('score', 'number'), field('vip', 'boolean'), field('birthday', 'date'), field('tier', 'select', ['gold', 'silver']), field('note', 'text')].map(
    (definition) => [definition.key, definition],
  ),
);

/** The input a read handed over, as plain data (the Map as an object). */
function inputOf(read: RowRead) {
  if (read.kind !== 'input') throw new Error(`expected an input, got ${JSON.stringify(read)}`);
  const { email, listIds, fields, overwrite } = read.input;
  return { email, listIds, fields: Object.fromEntries(fields), overwrite };
}

/** What the contacts pipeline's rules answer for a handed-over input (lists L1, L2 active). */
function pipelineCode(input: ContactInput): string {
  const [screened] = screenContacts([input]);
  if (screened.kind === 'failed') return screened.failure.code;
  const context: RuleContext = {
    activeListIds: new Set(['L1', 'L2']),
    customFields: FIELDS,
    existingContacts: new Map(),
    suppressions: new Map(),
  };
  const planned = planContact(screened.email, screened.input, context);
  return planned.outcome === 'failed' ? planned.code : planned.outcome;
}

describe('readNdjsonRow', () => {
  it('hands over a contact input, fields as a Map, overwrite from the row or the import', () => {
    const line = '{"email":" Ada@Example.com","listIds":["L1"],"fields":{"firstName":"Ada","score":3},"overwrite":true}';
    expect(inputOf(readNdjsonRow(line))).toEqual({
      email: ' Ada@Example.com',
      listIds: ['L1'],
      fields: { firstName: 'Ada', score: 3 },
      overwrite: true,
    });
    expect(inputOf(readNdjsonRow('{"email":"a@example.com"}', { overwrite: true }))).toEqual({
      email: 'a@example.com',
      listIds: undefined,
      fields: {},
      overwrite: true,
    });
    expect(inputOf(readNdjsonRow('{"email":"a@example.com","overwrite":false}', { overwrite: true })).overwrite).toBe(false);
  });

  it('keeps __proto__ and constructor as ordinary field keys', () => {
    const read = readNdjsonRow('{"email":"a@example.com","fields":{"__proto__":"x","constructor":"y"}}');
    expect(read.kind === 'input' && [...read.input.fields.entries()]).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
  });

  it.each([
    ['not JSON', '{"email":', /not JSON/, null],
    ['an array', '[1]', /JSON object, not an array/, null],
    ['null', 'null', /JSON object, not null/, null],
    ['a string', '"a@example.com"', /JSON object, not a string/, null],
    ['an unknown key', '{"email":" A@Example.com","name":"x"}', /unknown key "name"/, 'a@example.com'],
    ['listIds null', '{"email":"a@example.com","listIds":null}', /listIds must be an array of strings, not null/, 'a@example.com'],
    ['listIds of numbers', '{"email":"a@example.com","listIds":[1]}', /listIds must be an array of strings/, 'a@example.com'],
    ['listIds a string', '{"email":"a@example.com","listIds":"L1"}', /listIds must be an array of strings, not a string/, 'a@example.com'],
    ['fields null', '{"email":"a@example.com","fields":null}', /fields must be an object, not null/, 'a@example.com'],
    ['fields an array', '{"email":"a@example.com","fields":[]}', /fields must be an object, not an array/, 'a@example.com'],
    ['overwrite null', '{"email":"a@example.com","overwrite":null}', /overwrite must be a boolean, not null/, 'a@example.com'],
    ['overwrite a string', '{"email":"a@example.com","overwrite":"true"}', /overwrite must be a boolean, not a string/, 'a@example.com'],
    ['a wrong key and a non-string email', '{"email":5,"listIds":{}}', /listIds must be an array/, null],
  ])('%s is INVALID_ROW naming the problem, email normalized when it was a string', (_name, line, message, email) => {
    const read = readNdjsonRow(line);
    expect(read).toEqual({ kind: 'invalid', code: 'INVALID_ROW', message: expect.stringMatching(message), email });
  });

  it('a missing or non-string email is handed over: the pipeline answers INVALID_EMAIL with email null', () => {
    for (const line of ['{"listIds":["L1"]}', '{"email":42,"listIds":["L1"]}', '{"email":null,"listIds":["L1"]}']) {
      const read = readNdjsonRow(line);
      expect(read.kind).toBe('input');
      const [screened] = screenContacts([(read as { input: ContactInput }).input]);
      expect(screened).toMatchObject({ kind: 'failed', email: null, failure: { code: 'INVALID_EMAIL' } });
    }
  });

  it('bytes that are not UTF-8 are INVALID_ROW; valid bytes, and a U+FFFD in text, are read', () => {
    const broken = Buffer.concat([Buffer.from('{"email":"a@example.com","fields":{"note":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]);
    expect(readNdjsonRow(broken)).toEqual({ kind: 'invalid', code: 'INVALID_ROW', message: 'the row is not valid UTF-8', email: null });
    const good = Buffer.from('{"email":"a@example.com","fields":{"note":"é\uFFFD"}}');
    expect(inputOf(readNdjsonRow(good)).fields).toEqual({ note: 'é\uFFFD' });
    expect(inputOf(readNdjsonRow(good.toString('utf8'))).fields).toEqual({ note: 'é\uFFFD' });
  });
});

describe('readCsvHeader', () => {
  const badHeader = (names: string[]) => {
    try {
      readCsvHeader(names, FIELDS);
    } catch (error) {
      expect(error).toBeInstanceOf(RequestError);
      expect((error as RequestError).status).toBe(400);
      expect((error as RequestError).code).toBe('INVALID_REQUEST');
      return (error as RequestError).message;
    }
    throw new Error('no error thrown');
  };

  it('reads email, listIds, overwrite, an ignored suppressed column and standard and custom fields', () => {
    expect(readCsvHeader(['\uFEFFemail', 'listIds', 'overwrite', 'suppressed', 'firstName', 'score', 'tier'], FIELDS).columns).toEqual([
      { kind: 'email' },
      { kind: 'listIds' },
      { kind: 'overwrite' },
      { kind: 'ignored', name: 'suppressed' },
      { kind: 'field', key: 'firstName', type: null },
      { kind: 'field', key: 'score', type: 'number' },
      { kind: 'field', key: 'tier', type: 'select' },
    ]);
  });

  it('refuses a header without email, with a repeated name, or naming an unknown field, naming the column', () => {
    expect(badHeader(['listIds', 'firstName'])).toMatch(/"email" is required/);
    expect(badHeader(['email', 'firstName', 'firstName'])).toMatch(/"firstName" appears more than once/);
    expect(badHeader(['email', 'email'])).toMatch(/"email" appears more than once/);
    expect(badHeader(['email', 'nickname'])).toMatch(/"nickname" names no field/);
  });

  it('names are case-sensitive', () => {
    expect(badHeader(['Email', 'listIds'])).toMatch(/"Email" names no field/);
    expect(badHeader(['email', 'FirstName'])).toMatch(/"FirstName" names no field/);
    expect(badHeader(['email', 'Suppressed'])).toMatch(/"Suppressed" names no field/);
  });

  it('a header name that is not UTF-8 is a 400', () => {
    expect(() => readCsvHeader([Buffer.from('email'), Buffer.from([0xff])], FIELDS)).toThrow(/column 2 is not valid UTF-8/);
  });
});

describe('readCsvRecord', () => {
  const header: CsvHeader = readCsvHeader(['email', 'listIds', 'overwrite', 'suppressed', 'firstName', 'score', 'vip', 'birthday', 'tier'], FIELDS);
  const record = (cells: string[], overwrite = false) => readCsvRecord(cells, header, { overwrite });

  it('types cells by the field: number, boolean in any case, date and select as text', () => {
    expect(inputOf(record(['Ada@Example.com', 'L1;;L2;', 'TRUE', 'bounced', 'Ada', '-1.5e3', 'False', '1990-02-28', 'gold']))).toEqual({
      email: 'Ada@Example.com',
      listIds: ['L1', 'L2'],
      fields: { firstName: 'Ada', score: -1500, vip: false, birthday: '1990-02-28', tier: 'gold' },
      overwrite: true,
    });
  });

  it('an empty cell is not given; missing trailing cells too; overwrite falls back to the import', () => {
    expect(inputOf(record(['a@example.com', '', '', '', '', '0'], true))).toEqual({
      email: 'a@example.com',
      listIds: undefined,
      fields: { score: 0 },
      overwrite: true,
    });
    expect(inputOf(record(['a@example.com']))).toEqual({ email: 'a@example.com', listIds: undefined, fields: {}, overwrite: false });
    expect(inputOf(record(['', 'L1'])).email).toBeUndefined();
  });

  it('more cells than the header is INVALID_ROW', () => {
    const read = record([' A@Example.com', 'L1', '', '', '', '', '', '', '', 'extra']);
    expect(read).toEqual({ kind: 'invalid', code: 'INVALID_ROW', message: expect.stringMatching(/10 cells; the header has 9 columns/), email: 'a@example.com' });
  });

  it('overwrite other than true/false is INVALID_ROW', () => {
    expect(record(['a@example.com', 'L1', 'yes'])).toEqual({
      kind: 'invalid',
      code: 'INVALID_ROW',
      message: 'overwrite must be true or false, not "yes"',
      email: 'a@example.com',
    });
  });

  it.each([
    ['score', 5, '0x10'],
    ['score', 5, '1e999'],
    ['score', 5, ' 1'],
    ['score', 5, '01'],
    ['vip', 6, 'yes'],
    ['birthday', 7, '1990-02-30'],
    ['tier', 8, 'Gold'],
  ])('a %s cell that does not convert (%#) is handed over as its text, and the pipeline answers FIELD_TYPE_MISMATCH', (key, index, text) => {
    const cells = ['a@example.com', 'L1', '', '', '', '', '', '', ''];
    cells[index] = text;
    const read = record(cells);
    expect(inputOf(read).fields).toEqual({ [key]: text });
    expect(pipelineCode((read as { input: ContactInput }).input)).toBe('FIELD_TYPE_MISMATCH');
  });

  it('a row of converted cells passes the pipeline rules', () => {
    const read = record(['a@example.com', 'L1;L2', '', '', 'Ada', '12', 'true', '2000-02-29', 'silver']);
    expect(pipelineCode((read as { input: ContactInput }).input)).toBe('created');
  });

  it('an empty email cell is handed over as no email: the pipeline answers INVALID_EMAIL', () => {
    const read = record(['', 'L1']);
    const [screened] = screenContacts([(read as { input: ContactInput }).input]);
    expect(screened).toMatchObject({ kind: 'failed', email: null, failure: { code: 'INVALID_EMAIL', message: 'email is required' } });
  });

  it('a cell that is not UTF-8 makes the row INVALID_ROW', () => {
    expect(readCsvRecord([Buffer.from('a@example.com'), Buffer.from('L1'), Buffer.from([0xe2, 0x82])], header)).toEqual({
      kind: 'invalid',
      code: 'INVALID_ROW',
      message: 'the row is not valid UTF-8',
      email: null,
    });
  });
});
