import { cellText, contactRecord, csvColumns, quoteCell } from './export-csv';

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
    const record = contactRecord(
      {
        id: 'id-1',
        email: 'a@example.com',
        listIds: ['l1', 'l2'],
        fields: { firstName: 'Ann, "the" first', city: 'Oslo', alpha: 3, Zeta: false },
        suppressed: { reason: 'bounced' },
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
      },
      ['Zeta', 'alpha', 'missing'],
    );
    expect(record).toBe('a@example.com,l1;l2,bounced,"Ann, ""the"" first",,,,,Oslo,,false,3,\r\n');
  });
});
