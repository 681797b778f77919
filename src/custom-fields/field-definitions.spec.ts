import { fitsCustomField, fitsStandardField, isCalendarDate, isStandardFieldKey } from './field-definitions';

describe('fitsStandardField', () => {
  it('takes a string of up to 255 code points', () => {
    expect(fitsStandardField('Ada')).toBe(true);
    expect(fitsStandardField('a'.repeat(255))).toBe(true);
    expect(fitsStandardField('a'.repeat(256))).toBe(false);
    // 255 astral characters are 510 UTF-16 units but 255 code points.
    expect(fitsStandardField('😀'.repeat(255))).toBe(true);
    expect(fitsStandardField('😀'.repeat(256))).toBe(false);
  });

  it('refuses non-strings and U+0000', () => {
    expect(fitsStandardField(12)).toBe(false);
    expect(fitsStandardField(true)).toBe(false);
    expect(fitsStandardField({})).toBe(false);
    expect(fitsStandardField('a\u0000b')).toBe(false);
  });
});

describe('fitsCustomField', () => {
  const of = (type: 'text' | 'number' | 'boolean' | 'date' | 'select', options: string[] = []) => ({ type, options });

  it('text: a string of at most 2,000 code points', () => {
    expect(fitsCustomField(of('text'), 'x'.repeat(2000))).toBe(true);
    expect(fitsCustomField(of('text'), 'x'.repeat(2001))).toBe(false);
    expect(fitsCustomField(of('text'), 5)).toBe(false);
    expect(fitsCustomField(of('text'), '\u0000')).toBe(false);
  });

  it('number: a finite number, never a numeric string', () => {
    expect(fitsCustomField(of('number'), 0)).toBe(true);
    expect(fitsCustomField(of('number'), -1.5)).toBe(true);
    expect(fitsCustomField(of('number'), '42')).toBe(false);
    expect(fitsCustomField(of('number'), Infinity)).toBe(false); // JSON 1e400 parses to Infinity
    expect(fitsCustomField(of('number'), NaN)).toBe(false);
  });

  it('boolean: true or false only', () => {
    expect(fitsCustomField(of('boolean'), true)).toBe(true);
    expect(fitsCustomField(of('boolean'), false)).toBe(true);
    expect(fitsCustomField(of('boolean'), 'true')).toBe(false);
    expect(fitsCustomField(of('boolean'), 1)).toBe(false);
  });

  it('date: a real calendar date as YYYY-MM-DD', () => {
    expect(fitsCustomField(of('date'), '2024-02-29')).toBe(true);
    expect(fitsCustomField(of('date'), '2023-02-29')).toBe(false);
    expect(fitsCustomField(of('date'), '2024-13-01')).toBe(false);
    expect(fitsCustomField(of('date'), '2024-1-01')).toBe(false);
    expect(fitsCustomField(of('date'), '2024-01-01T00:00:00Z')).toBe(false);
    expect(fitsCustomField(of('date'), 20240101)).toBe(false);
  });

  it('select: one of the options, case-sensitive', () => {
    expect(fitsCustomField(of('select', ['gold', 'silver']), 'gold')).toBe(true);
    expect(fitsCustomField(of('select', ['gold', 'silver']), 'Gold')).toBe(false);
    expect(fitsCustomField(of('select', ['gold', 'silver']), 'bronze')).toBe(false);
  });
});

describe('isCalendarDate', () => {
  it('handles century leap years and small years', () => {
    expect(isCalendarDate('2000-02-29')).toBe(true);
    expect(isCalendarDate('1900-02-29')).toBe(false);
    expect(isCalendarDate('0099-12-31')).toBe(true);
    expect(isCalendarDate('2024-04-31')).toBe(false);
    expect(isCalendarDate('2024-04-00')).toBe(false);
  });
});

describe('isStandardFieldKey', () => {
  it('is case-sensitive and ignores prototype names', () => {
    expect(isStandardFieldKey('firstName')).toBe(true);
    expect(isStandardFieldKey('firstname')).toBe(false);
    expect(isStandardFieldKey('__proto__')).toBe(false);
    expect(isStandardFieldKey('constructor')).toBe(false);
  });
});

describe('strings that are not Unicode text', () => {
  it('a lone surrogate fits no text field; a surrogate pair does', () => {
    expect(fitsStandardField('a\ud800b')).toBe(false);
    expect(fitsStandardField('\udfff')).toBe(false);
    expect(fitsCustomField({ type: 'text', options: [] }, 'x\ud83d')).toBe(false);
    expect(fitsStandardField('\ud83d\ude00')).toBe(true);
  });
});
