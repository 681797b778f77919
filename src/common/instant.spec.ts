import fc from 'fast-check';
import { EARLIEST_INSTANT_MS, instantCeiling, LATEST_INSTANT_MS, readInstant } from './instant';

const DAY = 86_400_000;
const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** The year as ISO 8601 writes it: four digits, or expanded with a sign (extended format only). */
function yearText(year: number, expanded: boolean): string {
  if (!expanded && year >= 0 && year <= 9999) return pad(year, 4);
  return (year < 0 ? '-' : '+') + pad(Math.abs(year), 6);
}

/** The civil fields of a millisecond (Date's own getters: independent of the reader's arithmetic). */
function civil(ms: number) {
  const d = new Date(ms);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), milli: d.getUTCMilliseconds() };
}

function startOfYear(year: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, 0, 1);
  return d.getTime();
}

/** ISO week date of a day: the week-year holds the week's Thursday. */
function weekDate(ms: number): { weekYear: number; week: number; weekday: number } {
  const midnight = ms - (((ms % DAY) + DAY) % DAY);
  const weekday = ((new Date(midnight).getUTCDay() + 6) % 7) + 1;
  const thursday = midnight + (4 - weekday) * DAY;
  const weekYear = new Date(thursday).getUTCFullYear();
  return { weekYear, week: Math.floor((thursday - startOfYear(weekYear)) / (7 * DAY)) + 1, weekday };
}

interface Spelling {
  basic: boolean;
  dateKind: 'calendar' | 'ordinal' | 'week';
  expandedYear: boolean;
  separator: '.' | ',';
  zulu: 'Z' | 'z' | '+00:00';
  minus: '-' | '\u2212';
  offsetMinutesOnly: boolean;
}

const spelling: fc.Arbitrary<Spelling> = fc.record({
  basic: fc.boolean(),
  dateKind: fc.constantFrom('calendar', 'ordinal', 'week'),
  expandedYear: fc.boolean(),
  separator: fc.constantFrom('.', ','),
  zulu: fc.constantFrom('Z', 'z', '+00:00'),
  minus: fc.constantFrom('-', '\u2212'),
  offsetMinutesOnly: fc.boolean(),
});

/**
 * `ms` plus a sub-millisecond fraction (the digits after the millisecond's), written as local time
 * at `offsetMinutes` in the given spelling.
 */
function write(ms: number, subMilli: string, offsetMinutes: number, s: Spelling): string {
  const local = ms + offsetMinutes * 60_000;
  const c = civil(local);
  const w = weekDate(local);
  // The basic format has no expanded years.
  const basic = s.basic && [c.year, w.weekYear].every((year) => year >= 0 && year <= 9999);
  const expanded = !basic && (s.expandedYear || c.year < 0 || c.year > 9999);
  const dash = basic ? '' : '-';
  const colon = basic ? '' : ':';
  let date: string;
  if (s.dateKind === 'calendar') date = `${yearText(c.year, expanded)}${dash}${pad(c.month, 2)}${dash}${pad(c.day, 2)}`;
  else if (s.dateKind === 'ordinal') date = `${yearText(c.year, expanded)}${dash}${pad(Math.floor((local - startOfYear(c.year)) / DAY) + 1, 3)}`;
  else {
    date = `${yearText(w.weekYear, expanded || w.weekYear < 0 || w.weekYear > 9999)}${dash}W${pad(w.week, 2)}${dash}${w.weekday}`;
  }
  const fraction = `${pad(c.milli, 3)}${subMilli}`.replace(/0+$/, '');
  const time = `${pad(c.hour, 2)}${colon}${pad(c.minute, 2)}${colon}${pad(c.second, 2)}${fraction ? s.separator + fraction : ''}`;
  const magnitude = Math.abs(offsetMinutes);
  const hhmm = s.offsetMinutesOnly && magnitude % 60 === 0 ? pad(magnitude / 60, 2) : `${pad(Math.floor(magnitude / 60), 2)}${colon}${pad(magnitude % 60, 2)}`;
  const zone = offsetMinutes === 0 && !s.offsetMinutesOnly ? (basic && s.zulu === '+00:00' ? 'Z' : s.zulu) : `${offsetMinutes < 0 ? s.minus : '+'}${hhmm}`;
  return `${date}T${time}${zone}`;
}

// The whole range, a little beyond both ends, and the ends themselves.
const MARGIN = 3 * DAY;
const anyMs = fc.oneof(
  fc.integer({ min: EARLIEST_INSTANT_MS - MARGIN, max: LATEST_INSTANT_MS + MARGIN }),
  fc.integer({ min: -MARGIN, max: MARGIN }).map((d) => EARLIEST_INSTANT_MS + d),
  fc.integer({ min: -MARGIN, max: MARGIN }).map((d) => LATEST_INSTANT_MS + d),
  fc.constantFrom(EARLIEST_INSTANT_MS, LATEST_INSTANT_MS, EARLIEST_INSTANT_MS - 1, LATEST_INSTANT_MS + 1, 0),
);
const subMilli = fc.oneof(fc.constant(''), fc.stringMatching(/^[0-9]{1,30}$/));
const offset = fc.oneof(fc.constant(0), fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }), fc.integer({ min: -23, max: 23 }).map((h) => h * 60));

describe('readInstant (ISO 8601 instants)', () => {
  it('reads every written instant over the whole range with its meaning, or says it is out of range', () => {
    fc.assert(
      fc.property(anyMs, subMilli, offset, spelling, (ms, sub, offsetMinutes, s) => {
        const text = write(ms, sub, offsetMinutes, s);
        const finer = /[1-9]/.test(sub);
        const inRange = ms >= EARLIEST_INSTANT_MS && (ms < LATEST_INSTANT_MS || (ms === LATEST_INSTANT_MS && !finer));
        const reading = readInstant(text);
        if (inRange) expect({ text, reading }).toEqual({ text, reading: { ok: true, floorMs: ms, finer } });
        else expect({ text, reading }).toEqual({ text, reading: { ok: false, problem: 'range' } });
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with Date.parse on every toISOString() of the stored range', () => {
    fc.assert(
      fc.property(fc.integer({ min: EARLIEST_INSTANT_MS, max: LATEST_INSTANT_MS }), (ms) => {
        const text = new Date(ms).toISOString();
        expect(readInstant(text)).toEqual({ ok: true, floorMs: Date.parse(text), finer: false });
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on any text, and whatever it accepts lies in the stored range', () => {
    const near = fc
      .tuple(fc.stringMatching(/^[-+0-9W:T.,Zz\u2212 ]{0,40}$/), fc.string({ maxLength: 40 }))
      .map(([a, b]) => a + b);
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 60 }), near, fc.stringMatching(/^[+-]?\d{4,8}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}([.,]\d{1,20})?)?(Z|[+-]\d{2}(:\d{2})?)$/)), (text) => {
        const reading = readInstant(text);
        if (reading.ok) {
          expect(reading.floorMs).toBeGreaterThanOrEqual(EARLIEST_INSTANT_MS);
          expect(reading.floorMs).toBeLessThanOrEqual(LATEST_INSTANT_MS);
          expect(Number.isInteger(reading.floorMs)).toBe(true);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    // The cases of the report: rounded or offset into year 10000, and the first instant of year 1.
    ['9999-12-31T23:59:59.9999Z', 'range'],
    ['9999-12-31T23:59:59.999-01:00', 'range'],
    ['+010000-01-01T00:00:00Z', 'range'],
    ['0000-12-31T23:59:59.999Z', 'range'],
    ['-000001-01-01T00:00:00Z', 'range'],
    ['+99999999999999999999999-01-01T00:00Z', 'range'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['0000-12-31T23:00:00-01:00', '0001-01-01T00:00:00.000Z'],
    ['10000-01-01T00:30:00+01:00', 'format'], // an expanded year needs its sign
    ['+010000-01-01T00:30:00+01:00', '9999-12-31T23:30:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['0099-03-01T00:00:00Z', '0099-03-01T00:00:00.000Z'],
    // Spellings ISO 8601 allows.
    ['2026-01-31T12:00:00Z', '2026-01-31T12:00:00.000Z'],
    ['20260131T120000Z', '2026-01-31T12:00:00.000Z'],
    ['20260131T1200+0100', '2026-01-31T11:00:00.000Z'],
    ['2026-01-31T12Z', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T12:30+05', '2026-01-31T07:30:00.000Z'],
    ['2026-01-31T12:30,5Z', '2026-01-31T12:30:30.000Z'],
    ['2026-01-31T12,25Z', '2026-01-31T12:15:00.000Z'],
    ['2026-01-31T12:00:00,123456789123456789Z', '2026-01-31T12:00:00.124Z'], // rounded up
    ['2026-031T12:00:00Z', '2026-01-31T12:00:00.000Z'],
    ['2026-W05-6T12:00:00Z', '2026-01-31T12:00:00.000Z'],
    ['2026W056T12:00:00Z', 'format'], // basic date, extended time
    ['2020-W53-7T00:00Z', '2021-01-03T00:00:00.000Z'],
    ['2025-W53-1T00:00Z', 'format'], // 2025 has 52 weeks
    ['2026-W53-1T00:00Z', '2026-12-28T00:00:00.000Z'],
    ['2024-366T00:00Z', '2024-12-31T00:00:00.000Z'],
    ['2025-366T00:00Z', 'format'],
    ['2026-01-31T24:00:00Z', '2026-02-01T00:00:00.000Z'],
    ['2026-01-31T24:00:01Z', 'format'],
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ['2016-12-31T23:59:60.5Z', '2017-01-01T00:00:00.000Z'],
    ['2026-01-31t12:00:00z', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T12:00:00\u221201:00', '2026-01-31T13:00:00.000Z'],
    ['2026-01-31T12:00:00 01:00', '2026-01-31T11:00:00.000Z'], // a `+` unencoded in a query string
    ['2026-01-31T12:00:00-00:00', '2026-01-31T12:00:00.000Z'],
    // Not an instant: no offset, no time, a date that does not exist, out-of-range parts, mixed formats.
    ['2026-01-31T12:00:00', 'format'],
    ['2026-01-31', 'format'],
    ['2026-02-29T00:00Z', 'format'],
    ['2026-01-31T25:00:00Z', 'format'],
    ['2026-01-31T12:60Z', 'format'],
    ['2026-01-31T12:00:00+24:00', 'format'],
    ['2026-01-31T12:00:00+01:60', 'format'],
    ['2026-01-31T1200:00Z', 'format'],
    ['2026-01-31T12:00:00+0100', 'format'],
    ['20260131T12:00:00Z', 'format'],
    ['2026-01-31T12:00:00.Z', 'format'],
    ['-0000-01-01T00:00Z', 'format'],
    ['1700000000', 'format'],
    ['', 'format'],
  ])('%s → %s', (text, expected) => {
    const reading = readInstant(text);
    if (reading.ok) expect(instantCeiling(reading).toISOString()).toBe(expected);
    else expect(reading.problem).toBe(expected);
  });
});
