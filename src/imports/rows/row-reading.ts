/**
 * A stored import row as a contact input (contract section 17 and its fine points): an NDJSON
 * line's key checks, a CSV record's cells as typed values. What is not a contact input is
 * INVALID_ROW; an email that is not a string is rule 1 (INVALID_EMAIL). Everything else (the
 * rules of section 4) is the contacts pipeline's.
 */
import type { ContactInput } from '../../contacts/contact-input.shape';
import { normalizeEmail } from '../../contacts/email';
import { type CustomFieldDefinition, isStandardFieldKey } from '../../custom-fields/field-definitions';
import { invalidRequest } from '../../errors/request-error';

export type RowRead =
  | { kind: 'input'; input: ContactInput }
  | { kind: 'invalid'; code: 'INVALID_ROW' | 'INVALID_EMAIL'; message: string; email: string | null };

/** The organization's custom fields by key. */
export type FieldDefinitions = ReadonlyMap<string, CustomFieldDefinition>;

/** What a row that does not give its own `overwrite` gets (the import's `overwrite`). */
export interface RowDefaults {
  overwrite: boolean;
}

const NDJSON_KEYS: ReadonlySet<string> = new Set(['email', 'listIds', 'fields', 'overwrite']);

const invalidRow = (message: string, email: unknown): RowRead => ({
  kind: 'invalid',
  code: 'INVALID_ROW',
  message,
  email: typeof email === 'string' ? normalizeEmail(email) : null,
});

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function readNdjsonRow(line: string, defaults: RowDefaults = { overwrite: false }): RowRead {
  let value: unknown;
  try {
    value = JSON.parse(line); // keeps "__proto__" as an ordinary own key
  } catch {
    return invalidRow('row is not valid JSON', undefined);
  }
  if (!isPlainObject(value)) return invalidRow('row is not a JSON object', undefined);
  const email = value.email;
  const unknown = Object.keys(value).filter((key) => !NDJSON_KEYS.has(key));
  if (unknown.length > 0) return invalidRow(`unknown key: ${unknown.map((key) => JSON.stringify(key)).join(', ')}`, email);
  const { listIds, fields, overwrite } = value;
  if ('listIds' in value && (!Array.isArray(listIds) || !listIds.every((id) => typeof id === 'string'))) {
    return invalidRow('listIds must be an array of strings', email);
  }
  if ('fields' in value && !isPlainObject(fields)) return invalidRow('fields must be an object', email);
  if ('overwrite' in value && typeof overwrite !== 'boolean') return invalidRow('overwrite must be true or false', email);
  if (typeof email !== 'string') {
    return { kind: 'invalid', code: 'INVALID_EMAIL', message: email === undefined ? 'email is required' : 'email must be a string', email: null };
  }
  return {
    kind: 'input',
    input: {
      email,
      listIds: listIds as string[] | undefined,
      fields: new Map(Object.entries((fields as Record<string, unknown> | undefined) ?? {})),
      overwrite: typeof overwrite === 'boolean' ? overwrite : defaults.overwrite,
    },
  };
}

export type CsvColumn =
  | { kind: 'email' }
  | { kind: 'listIds' }
  | { kind: 'overwrite' }
  | { kind: 'ignored' }
  | { kind: 'field'; key: string; definition: CustomFieldDefinition | undefined };

export interface CsvHeader {
  columns: CsvColumn[];
}

/** The header record: `email` required, no name twice, every other name a column or field. */
export function readCsvHeader(names: string[], fields: FieldDefinitions): CsvHeader {
  const seen = new Set<string>();
  const columns = names.map((name): CsvColumn => {
    if (seen.has(name)) throw invalidRequest(`CSV header repeats column ${JSON.stringify(name)}`);
    seen.add(name);
    if (name === 'email' || name === 'listIds' || name === 'overwrite') return { kind: name };
    if (name === 'suppressed') return { kind: 'ignored' };
    if (isStandardFieldKey(name)) return { kind: 'field', key: name, definition: undefined };
    const definition = fields.get(name);
    if (!definition) throw invalidRequest(`CSV header names column ${JSON.stringify(name)}, which is no field of the organization`);
    return { kind: 'field', key: name, definition };
  });
  if (!seen.has('email')) throw invalidRequest('CSV header has no column "email"');
  return { columns };
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** A cell as a custom field's value; a cell that fits no value of the type stays text (rule 6 then fails it). */
function typedCell(cell: string, definition: CustomFieldDefinition | undefined): unknown {
  if (!definition) return cell;
  switch (definition.type) {
    case 'number':
      return JSON_NUMBER.test(cell) ? Number(cell) : cell;
    case 'boolean': {
      const lower = cell.toLowerCase();
      return lower === 'true' ? true : lower === 'false' ? false : cell;
    }
    default:
      return cell;
  }
}

export function readCsvRecord(cells: string[], header: CsvHeader, defaults: RowDefaults = { overwrite: false }): RowRead {
  const { columns } = header;
  const emailIndex = columns.findIndex((column) => column.kind === 'email');
  const emailCell = cells[emailIndex];
  const email = emailCell === undefined || emailCell === '' ? undefined : emailCell;
  if (cells.length > columns.length) return invalidRow(`record has ${cells.length} cells; the header has ${columns.length}`, email);
  let listIds: string[] | undefined;
  let overwrite = defaults.overwrite;
  const fields = new Map<string, unknown>();
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    const column = columns[i];
    if (cell === '') continue; // an empty cell is "not given"
    switch (column.kind) {
      case 'listIds':
        listIds = cell.split(';').filter((id) => id !== '');
        break;
      case 'overwrite': {
        const lower = cell.toLowerCase();
        if (lower !== 'true' && lower !== 'false') return invalidRow('overwrite must be true or false', email);
        overwrite = lower === 'true';
        break;
      }
      case 'field':
        fields.set(column.key, typedCell(cell, column.definition));
        break;
      default:
        break;
    }
  }
  if (email === undefined) return { kind: 'invalid', code: 'INVALID_EMAIL', message: 'email is required', email: null };
  return { kind: 'input', input: { email, listIds, fields, overwrite } };
}
