import { isStorableText } from '../common/storable-text';
import { CustomFieldType } from '../generated/prisma/enums';

/**
 * What fits a field (docs/api.md#fields). Pure: used by the contacts pipeline for input values
 * and by the admin command line for `field create --default`.
 */
export const STANDARD_FIELD_KEYS = ['firstName', 'lastName', 'phone', 'company', 'jobTitle', 'city', 'country'] as const;
export type StandardFieldKey = (typeof STANDARD_FIELD_KEYS)[number];

export const STANDARD_FIELD_MAX_LENGTH = 255;
export const TEXT_FIELD_MAX_LENGTH = 2000;
export const CUSTOM_FIELD_KEY_PATTERN = /^[a-zA-Z][a-zA-Z0-9_]{0,63}$/;

/** From the Prisma enum (schema.prisma), the one list of types. */
export const CUSTOM_FIELD_TYPES: readonly CustomFieldType[] = Object.values(CustomFieldType);
export type CustomFieldTypeName = CustomFieldType;

export interface CustomFieldDefinition {
  key: string;
  type: CustomFieldTypeName;
  required: boolean;
  /** null when the field has no default. */
  defaultValue: unknown;
  options: string[];
}

const STANDARD_KEYS: ReadonlySet<string> = new Set(STANDARD_FIELD_KEYS);

export function isStandardFieldKey(key: string): key is StandardFieldKey {
  return STANDARD_KEYS.has(key);
}

/**
 * Lengths are counted in Unicode code points; U+0000 fits no field, nor does a lone surrogate
 * (PostgreSQL cannot store either in text or jsonb).
 */
function fitsString(value: unknown, maxLength: number): value is string {
  if (typeof value !== 'string' || !isStorableText(value)) return false;
  let codePoints = 0;
  for (const _ of value) if (++codePoints > maxLength) return false;
  return true;
}

/** `YYYY-MM-DD` naming a real calendar date. */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Does a non-null value fit a standard field? */
export function fitsStandardField(value: unknown): boolean {
  return fitsString(value, STANDARD_FIELD_MAX_LENGTH);
}

/** Does a non-null value fit a custom field of this definition? */
export function fitsCustomField(definition: Pick<CustomFieldDefinition, 'type' | 'options'>, value: unknown): boolean {
  switch (definition.type) {
    case 'text':
      return fitsString(value, TEXT_FIELD_MAX_LENGTH);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
      return isCalendarDate(value);
    case 'select':
      return typeof value === 'string' && definition.options.includes(value);
  }
}
