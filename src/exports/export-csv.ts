import { STANDARD_FIELD_KEYS } from '../custom-fields/field-definitions';

/**
 * The export's CSV (contract section 17): the header `email,listIds,suppressed,` then the standard
 * fields, then the custom fields in key byte order; one record per contact, from the contact as
 * GET /contacts/{email} shows it, from the cells PostgreSQL returns (EXPORT_ROWS.csv). Records end
 * with CRLF and cells are quoted as RFC 4180 says.
 *
 * Written here rather than with a CSV library: the whole of RFC 4180's writing side is
 * `quoteCell` (a cell holding a quote, a comma, CR or LF is quoted, its quotes doubled), tested in
 * export-csv.spec.ts, and a record is one string built per contact with no per-cell stream step.
 */

/** One cell as RFC 4180 writes it. */
export function quoteCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A field value as a cell: text as it is (dates are stored YYYY-MM-DD), numbers in the JSON grammar, true/false, empty for no value. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** The header record's column names for these custom field keys (already in byte order). */
export function csvColumns(customKeys: readonly string[]): string[] {
  return ['email', 'listIds', 'suppressed', ...STANDARD_FIELD_KEYS, ...customKeys];
}

export function csvRecord(cells: readonly string[]): string {
  return `${cells.map(quoteCell).join(',')}\r\n`;
}

/**
 * A contact's record, its cells in `csvColumns(customKeys)` order, from a row of EXPORT_ROWS.csv as
 * an array: email, listIds, suppressed and the standard fields as text (null: empty), then the
 * custom fields' JSON object (null: none), whose values are written by cellText.
 */
export function exportRecord(row: readonly (string | null)[], customKeys: readonly string[]): string {
  const last = row.length - 1;
  let record = '';
  for (let i = 0; i < last; i++) record += `${i === 0 ? '' : ','}${quoteCell(row[i] ?? '')}`;
  const customJson = row[last];
  const custom = customJson === null ? {} : (JSON.parse(customJson) as Record<string, unknown>);
  for (const key of customKeys) record += `,${quoteCell(cellText(Object.hasOwn(custom, key) ? custom[key] : undefined))}`;
  return `${record}\r\n`;
}
