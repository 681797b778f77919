/**
 * The one reader of ISO 8601 instants (a date, a time of day and a UTC offset), for every instant a
 * caller or an operator gives: `updatedSince` of GET /api/v2/contacts, `--expires-at` of the admin
 * command line.
 *
 * What ISO 8601-1 allows for a date and time with an offset is read, in the basic or the extended
 * format (one of them for the whole text, as the standard asks):
 * - the date as a calendar date (`2026-01-31`, `20260131`), an ordinal date (`2026-031`) or a week
 *   date (`2026-W05-6`); in the extended format the year may be expanded (`+002026`, `-000044`);
 * - `T` (or `t`), then the time as `hh`, `hh:mm` or `hh:mm:ss`, its lowest part with a decimal
 *   fraction of any length after `.` or `,`; `24:00:00` is the end of the day (the next day's
 *   start); second 60 is a leap second, read as the minute after it (as PostgreSQL reads it: the
 *   stored times have no leap seconds, so no stored time lies between the two);
 * - the offset as `Z` (or `z`), `±hh`, `±hh:mm` or `±hhmm`, the minus also as U+2212. A `+` sent
 *   unencoded in a query string arrives as a space, so a space stands for `+`.
 *
 * Stored times have millisecond precision: a finer instant is given as the millisecond before it
 * and whether it lies after that millisecond, for each use to round the way its meaning needs.
 *
 * The service stores instants from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z: the
 * years of ISO 8601's four-digit form, which PostgreSQL's timestamptz holds and the database client
 * passes (it refuses a year of five digits). A well-formed instant outside them reads as `range`.
 */
export type InstantReading =
  | { ok: true; /** The millisecond at or before the instant (ms since the epoch). */ floorMs: number; /** The instant lies after floorMs. */ finer: boolean }
  | { ok: false; problem: 'format' | 'range' };

export const EARLIEST_INSTANT_MS = -62135596800000; // 0001-01-01T00:00:00.000Z
export const LATEST_INSTANT_MS = 253402300799999; // 9999-12-31T23:59:59.999Z
export const INSTANT_RANGE_TEXT = '0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';

const MS_PER_DAY = 86_400_000;
/** Years this far out cannot come back into the stored range with any offset; the arithmetic stays exact. */
const YEAR_BOUND = 100_000;

const SIGN = '[+\\-\u2212 ]';
const EXTENDED_DATE = new RegExp(`^(${SIGN}\\d{4,}|\\d{4})-(?:(\\d{2})-(\\d{2})|(\\d{3})|W(\\d{2})-(\\d))$`);
const BASIC_DATE = /^(\d{4})(?:(\d{2})(\d{2})|(\d{3})|W(\d{2})(\d))$/;
const OFFSET = `(?:([Zz])|(${SIGN})(\\d{2})(?:(:?)(\\d{2}))?)`;
const TIME = new RegExp(`^(\\d{2})(?:(:?)(\\d{2})(?:(:?)(\\d{2}))?)?(?:[.,](\\d+))?${OFFSET}$`);

type Format = 'basic' | 'extended' | 'either';

export function readInstant(text: string): InstantReading {
  const format: InstantReading = { ok: false, problem: 'format' };
  const t = text.search(/[Tt]/);
  if (t === -1) return format;
  const date = readDate(text.slice(0, t));
  const time = readTime(text.slice(t + 1));
  if (!date || !time) return format;
  if (date.format !== time.format && time.format !== 'either') return format;
  if (date.days === null) return { ok: false, problem: 'range' };
  const floorMs = date.days * MS_PER_DAY + time.floorMs;
  // The instant itself within the stored range: rounded either way, it stays there.
  if (floorMs < EARLIEST_INSTANT_MS || floorMs > LATEST_INSTANT_MS || (floorMs === LATEST_INSTANT_MS && time.finer)) {
    return { ok: false, problem: 'range' };
  }
  return { ok: true, floorMs, finer: time.finer };
}

/** A read instant as a Date rounded up to the millisecond: `stored ≥ it` and `stored < it` keep their meaning. */
export function instantCeiling(reading: { floorMs: number; finer: boolean }): Date {
  return new Date(reading.floorMs + (reading.finer ? 1 : 0));
}

/** A read instant as a Date rounded down to the millisecond. */
export function instantFloor(reading: { floorMs: number }): Date {
  return new Date(reading.floorMs);
}

interface DatePart {
  /** Days from 1970-01-01 (proleptic Gregorian); null for a year too far out to come back into range. */
  days: number | null;
  format: Format;
}

function readDate(text: string): DatePart | null {
  const extended = EXTENDED_DATE.exec(text);
  const match = extended ?? BASIC_DATE.exec(text);
  if (!match) return null;
  const [, yearText, month, day, ordinal, week, weekday] = match;
  const sign = /^[-\u2212]/.test(yearText) ? -1 : 1;
  const year = sign * Number(yearText.replace(/^\D/, ''));
  if (sign === -1 && year === 0) return null; // "-0000" is not a year
  const format = extended ? 'extended' : 'basic';
  if (!(Math.abs(year) <= YEAR_BOUND)) return { days: null, format }; // the day itself does not matter then
  let days: number | null;
  if (month !== undefined) days = calendarDays(year, Number(month), Number(day));
  else if (ordinal !== undefined) days = ordinalDays(year, Number(ordinal));
  else days = weekDays(year, Number(week), Number(weekday));
  return days === null ? null : { days, format };
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const monthLength = (year: number, month: number) => (month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil), for any year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function calendarDays(year: number, month: number, day: number): number | null {
  if (month < 1 || month > 12 || day < 1 || day > monthLength(year, month)) return null;
  return daysFromCivil(year, month, day);
}

function ordinalDays(year: number, ordinal: number): number | null {
  if (ordinal < 1 || ordinal > (isLeap(year) ? 366 : 365)) return null;
  return daysFromCivil(year, 1, 1) + ordinal - 1;
}

/** The Monday of week 1: the week with the year's first Thursday (the one holding 4 January). */
function firstMonday(year: number): number {
  const jan4 = daysFromCivil(year, 1, 4);
  const weekday = (((jan4 + 3) % 7) + 7) % 7; // 0 = Monday (1970-01-01 was a Thursday)
  return jan4 - weekday;
}

function weekDays(year: number, week: number, weekday: number): number | null {
  const weeks = Math.floor((firstMonday(year + 1) - firstMonday(year)) / 7);
  if (week < 1 || week > weeks || weekday < 1 || weekday > 7) return null;
  return firstMonday(year) + (week - 1) * 7 + weekday - 1;
}

interface TimePart {
  /** Milliseconds from the day's start in UTC, at or before the instant (may leave the day either way). */
  floorMs: number;
  finer: boolean;
  format: Format;
}

const UNIT_MS = [3_600_000, 60_000, 1000] as const;

function readTime(text: string): TimePart | null {
  const match = TIME.exec(text);
  if (!match) return null;
  const [, hh, colon1, mm, colon2, ss, fraction, zulu, sign, oh, colon3, om] = match;
  // One format for the whole time: colons everywhere or nowhere.
  const colons = [mm === undefined ? undefined : colon1, ss === undefined ? undefined : colon2, om === undefined ? undefined : colon3].filter(
    (c) => c !== undefined,
  );
  if (colons.some((c) => c !== colons[0])) return null;
  const format: Format = colons.length === 0 ? 'either' : colons[0] === ':' ? 'extended' : 'basic';
  const [hour, minute, second] = [Number(hh), Number(mm ?? 0), Number(ss ?? 0)];
  const [offsetHours, offsetMinutes] = [Number(oh ?? 0), Number(om ?? 0)];
  if (minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return null;
  const fractionDigits = (fraction ?? '').replace(/0+$/, '');
  if (hour > 24 || (hour === 24 && (minute !== 0 || second !== 0 || fractionDigits !== ''))) return null;
  if (second === 60 && ss === undefined) return null;
  const offsetMs = (zulu ? 0 : (/[-\u2212]/.test(sign) ? -1 : 1) * (offsetHours * 60 + offsetMinutes)) * 60_000;
  const wholeMs = hour * UNIT_MS[0] + minute * UNIT_MS[1] + second * UNIT_MS[2] - offsetMs;
  if (second === 60) return { floorMs: wholeMs - second * 1000 + 60_000, finer: false, format };
  // The fraction is of the lowest part given: hours, minutes or seconds; exact in integers.
  const unit = BigInt(UNIT_MS[ss !== undefined ? 2 : mm !== undefined ? 1 : 0]);
  const [numerator, denominator] = [BigInt(fractionDigits || '0') * unit, 10n ** BigInt(fractionDigits.length)];
  return { floorMs: wholeMs + Number(numerator / denominator), finer: numerator % denominator !== 0n, format };
}
