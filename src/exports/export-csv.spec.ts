import { cellText, csvColumns, exportRecord, quoteCell } from './export-csv';

describe('export CSV (RFC 4180)', () => {
  it('quotes a cell holding a quote, a comma, CR or LF, doubling its quotes; leaves others as they are', () => {
    expect(quoteCell('plain text')).toBe('plain text');
    expect(quoteCell('')).toBe('');
    expect(quoteCell('a,b')).toBe('"a,b"');
    expect(quoteCell('say "hi"')).toBe('"say ""hi"""');
    expect(quoteCell('line\nbreak')).toBe('"line\nbreak"');
    expect(quoteCell('cr\rhere')).toBe('"cr\rhere"');
    expect(quoteCell(' spaced ')).toBe(' spaced ');
  });

  it('writes numbers in the JSON grammar, booleans as true/false, nothing for no value', () => {
    expect(cellText(1.5e-7)).toBe('1.5e-7');
    expect(cellText(-0.25)).toBe('-0.25');
    expect(cellText(42)).toBe('42');
    expect(cellText(true)).toBe('true');
    expect(cellText(false)).toBe('false');
    expect(cellText('2026-01-31')).toBe('2026-01-31');
    expect(cellText(null)).toBe('');
    expect(cellText(undefined)).toBe('');
  });

  it('puts email, listIds, suppressed, the standard fields, then the custom ones in the given order', () => {
    expect(csvColumns(['Zeta', 'alpha'])).toEqual([
      'email', 'listIds', 'suppressed', 'firstName', 'lastName', 'phone', 'company', 'jobTitle', 'city', 'country', 'Zeta', 'alpha',
    ]);
    // A row of EXPORT_ROWS.csv: email, listIds, suppressed, the 7 standard fields, the custom fields' jsonb text.
    const record = exportRecord(
      ['a@example.com', 'l1;l2', 'bounced', 'Ann, "the" first', null, null, null, null, 'Oslo', null, '{"alpha": 3, "Zeta": false}'],
      ['Zeta', 'alpha', 'missing'],
    );
    expect(record).toBe('a@example.com,l1;l2,bounced,"Ann, ""the"" first",,,,,Oslo,,false,3,\r\n');
    // No custom fields, nothing in the optional cells, a number JSON.stringify writes with an exponent.
    expect(exportRecord(['b@example.com', null, null, null, null, null, null, null, null, null, null], ['Zeta'])).toBe('b@example.com,,,,,,,,,,\r\n');
    expect(exportRecord(['c@example.com', '', null, null, null, null, null, null, null, null, '{"n": 1e-7}'], ['n'])).toBe('c@example.com,,,,,,,,,,1e-7\r\n');
  });
});
