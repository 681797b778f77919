import type { ContactInput } from '../../contacts/contact-input.shape';
import { normalizeEmail } from '../../contacts/email';
import { type CustomFieldDefinition, isStandardFieldKey } from '../../custom-fields/field-definitions';
import { invalidRequest } from '../../errors/request-error';

/**
 * One stored import row turned into a contact input of docs/api.md#a-contact (contract section 17,
 * "What a row is"). Only the row's shape is judged here: a row that is not a contact input is
 * `INVALID_ROW`. Every per-contact rule (rule 1 for `email` included: a missing or non-string email
 * is handed over as it is, and the pipeline answers INVALID_EMAIL with `email` null), list ids,
 * field values and suppressions are the contacts pipeline's, applied to the `input` returned.
 *
 * Bytes: a row may be given as a string (text the caller decoded strictly, so every character in
 * it is a character of the file, U+FFFD included) or as its raw bytes (a Uint8Array, decoded here
 * strictly: bytes that are not UTF-8 make the row INVALID_ROW). A caller that decodes with a
 * replacing decoder cannot tell a U+FFFD of the file from a broken byte, so it passes bytes, or
 * uses `notUtf8Row()` when its own strict decoding failed.
 */
export type RowRead =
  | { kind: 'input'; input: ContactInput }
  | { kind: 'invalid'; code: 'INVALID_ROW' | 'INVALID_EMAIL'; message: string; email: string | null };

/**
 * The organization's custom fields by key, as the pipeline's RuleContext holds them; standard
 * fields need no definition.
 */
export type FieldDefinitions = ReadonlyMap<string, CustomFieldDefinition>;

/** What a row that does not give its own `overwrite` gets: the import's `overwrite`. */
export interface RowDefaults {
  overwrite: boolean;
}

const NO_DEFAULTS: RowDefaults = { overwrite: false };

/** A row's text or its raw bytes (see RowRead). */
export type RowText = string | Uint8Array;

const INPUT_KEYS: ReadonlySet<string> = new Set(['email', 'listIds', 'fields', 'overwrite']);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const NOT_UTF8 = 'the row is not valid UTF-8';

function invalidRow(message: string, email: unknown = undefined): RowRead {
  return { kind: 'invalid', code: 'INVALID_ROW', message, email: typeof email === 'string' ? normalizeEmail(email) : null };
}

/** The answer for a row whose bytes the caller found not to be UTF-8. */
export function notUtf8Row(): RowRead {
  return invalidRow(NOT_UTF8);
}

/** Strict UTF-8 text of a row given as bytes; a string is taken as it is. null: not UTF-8. */
function textOf(value: RowText): string | null {
  if (typeof value === 'string') return value;
  try {
    return strictUtf8.decode(value);
  } catch {
    return null;
  }
}

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/** One non-blank NDJSON line. */
export function readNdjsonRow(line: RowText, defaults: RowDefaults = NO_DEFAULTS): RowRead {
  const text = textOf(line);
  if (text === null) return notUtf8Row();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return invalidRow(`the row is not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalidRow(`the row must be a JSON object, not ${kindOf(value)}`);
  }
  const row = value as Record<string, unknown>;
  const email = row.email;
  const unknownKeys = Object.keys(row).filter((key) => !INPUT_KEYS.has(key));
  if (unknownKeys.length > 0) {
    const named = unknownKeys.map((key) => JSON.stringify(key)).join(', ');
    return invalidRow(`unknown key ${named}: a row holds only email, listIds, fields and overwrite`, email);
  }
  const { listIds, fields, overwrite } = row;
  if (listIds !== undefined && (!Array.isArray(listIds) || listIds.some((id) => typeof id !== 'string'))) {
    return invalidRow(`listIds must be an array of strings, not ${kindOf(listIds)}`, email);
  }
  if (fields !== undefined && (typeof fields !== 'object' || fields === null || Array.isArray(fields))) {
    return invalidRow(`fields must be an object, not ${kindOf(fields)}`, email);
  }
  if (overwrite !== undefined && typeof overwrite !== 'boolean') {
    return invalidRow(`overwrite must be a boolean, not ${kindOf(overwrite)}`, email);
  }
  // Key by key into a Map: `__proto__` and `constructor` stay ordinary keys.
  const fieldMap = new Map<string, unknown>();
  if (fields !== undefined) {
    for (const key of Object.keys(fields)) fieldMap.set(key, (fields as Record<string, unknown>)[key]);
  }
  return {
    kind: 'input',
    input: { email, listIds: listIds as string[] | undefined, fields: fieldMap, overwrite: overwrite ?? defaults.overwrite },
  };
}

/** What one CSV column holds. `field` columns carry the custom field's type (null: a standard field, text). */
export type CsvColumn =
  | { kind: 'email' }
  | { kind: 'listIds' }
  | { kind: 'overwrite' }
  | { kind: 'ignored'; name: string }
  | { kind: 'field'; key: string; type: CustomFieldDefinition['type'] | null };

/** A CSV file's header, read once per import. */
export interface CsvHeader {
  columns: CsvColumn[];
}

/** The column an export writes and an import ignores. */
const IGNORED_COLUMNS: ReadonlySet<string> = new Set(['suppressed']);

/**
 * The header record (contract section 17): `email` required, `listIds` and `overwrite` optional,
 * `suppressed` ignored, every other column a standard or custom field of the organization; names
 * are case-sensitive. A leading byte order mark on the first name is dropped (an optional BOM).
 * Throws 400 INVALID_REQUEST naming the column: no `email`, a repeated name, an unknown field, or
 * a name that is not UTF-8.
 */
export function readCsvHeader(names: readonly RowText[], fields: FieldDefinitions): CsvHeader {
  const seen = new Set<string>();
  const columns = names.map((raw, index): CsvColumn => {
    let name = textOf(raw);
    if (name === null) throw invalidRequest(`CSV header: column ${index + 1} is not valid UTF-8`);
    if (index === 0 && name.startsWith('\uFEFF')) name = name.slice(1);
    const quoted = JSON.stringify(name);
    if (seen.has(name)) throw invalidRequest(`CSV header: column ${quoted} appears more than once`);
    seen.add(name);
    if (name === 'email') return { kind: 'email' };
    if (name === 'listIds') return { kind: 'listIds' };
    if (name === 'overwrite') return { kind: 'overwrite' };
    if (IGNORED_COLUMNS.has(name)) return { kind: 'ignored', name };
    if (isStandardFieldKey(name)) return { kind: 'field', key: name, type: null };
    const type = fields.get(name)?.type;
    if (type === undefined) throw invalidRequest(`CSV header: column ${quoted} names no field of the organization`);
    return { kind: 'field', key: name, type };
  });
  if (!seen.has('email')) throw invalidRequest('CSV header: column "email" is required');
  return { columns };
}

/** The JSON number grammar (RFC 8259 section 6), nothing around it. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A non-empty cell of a field column, typed by the field: `number` by the JSON number grammar,
 * `boolean` `true`/`false` in any letter case. A cell that does not convert stays its text, so
 * that the pipeline's rule 6 answers FIELD_TYPE_MISMATCH; text, date and select cells are text
 * already (the pipeline checks the date and the option).
 */
function cellValue(cell: string, type: CsvColumn & { kind: 'field' }): unknown {
  switch (type.type) {
    case 'number': {
      if (!JSON_NUMBER.test(cell)) return cell;
      const number = Number(cell);
      return Number.isFinite(number) ? number : cell;
    }
    case 'boolean': {
      const lower = cell.toLowerCase();
      return lower === 'true' ? true : lower === 'false' ? false : cell;
    }
    default:
      return cell;
  }
}

/**
 * One non-blank data record (the caller skips blank records and does not count them). An empty
 * cell is "not given"; missing trailing cells too; more cells than the header is INVALID_ROW.
 * `listIds` splits on `;`, empty ids ignored; `overwrite` is `true`/`false` in any letter case, else
 * INVALID_ROW; an empty `overwrite` takes the import's.
 */
export function readCsvRecord(cells: readonly RowText[], header: CsvHeader, defaults: RowDefaults = NO_DEFAULTS): RowRead {
  const texts: string[] = [];
  for (const cell of cells) {
    const text = textOf(cell);
    if (text === null) return notUtf8Row();
    texts.push(text);
  }
  const { columns } = header;
  const emailColumn = columns.findIndex((column) => column.kind === 'email');
  const email = texts[emailColumn] ? texts[emailColumn] : undefined;
  if (texts.length > columns.length) {
    return invalidRow(`the record has ${texts.length} cells; the header has ${columns.length} columns`, email);
  }
  let listIds: string[] | undefined;
  let overwrite = defaults.overwrite;
  const fields = new Map<string, unknown>();
  for (let index = 0; index < texts.length; index++) {
    const cell = texts[index];
    if (cell === '') continue;
    const column = columns[index];
    switch (column.kind) {
      case 'listIds':
        listIds = cell.split(';').filter((id) => id !== '');
        break;
      case 'overwrite': {
        const lower = cell.toLowerCase();
        if (lower !== 'true' && lower !== 'false') {
          return invalidRow(`overwrite must be true or false, not ${JSON.stringify(cell)}`, email);
        }
        overwrite = lower === 'true';
        break;
      }
      case 'field':
        fields.set(column.key, cellValue(cell, column));
        break;
      case 'email':
      case 'ignored':
        break;
    }
  }
  return { kind: 'input', input: { email, listIds, fields, overwrite } };
}
