import { isStorableText } from '../common/storable-text';
import {
  CUSTOM_FIELD_KEY_PATTERN,
  CUSTOM_FIELD_TYPES,
  type CustomFieldDefinition,
  type CustomFieldTypeName,
  fitsCustomField,
  isStandardFieldKey,
} from './field-definitions';

/**
 * The checks of a custom field definition (docs/api.md, "Custom fields"), in ONE place: POST and
 * PATCH /api/v2/fields and the admin command `field create` all call these. Pure: what needs the
 * database (a key already in use) is decided by the unique index.
 *
 * Each check answers the first problem as a message, or the checked value. Messages name the
 * inputs through `names`, so the API says `defaultValue` where the command line says `--default`.
 */

/** How a caller names the inputs in messages. */
export interface FieldInputNames {
  key: string;
  type: string;
  required: string;
  defaultValue: string;
  options: string;
}

export const API_FIELD_NAMES: FieldInputNames = {
  key: 'key',
  type: 'type',
  required: 'required',
  defaultValue: 'defaultValue',
  options: 'options',
};

/** Options of a select field: at most this many, each of 1–255 code points. */
export const MAX_SELECT_OPTIONS = 500;
export const MAX_OPTION_LENGTH = 255;

/** A new field, as the API or the command line gives it; `undefined` means "not given". */
export interface NewFieldInput {
  key: unknown;
  type: unknown;
  required?: unknown;
  /** `undefined` or `null`: no default. */
  defaultValue?: unknown;
  options?: unknown;
}

/** A change to an existing field; `undefined` means "keep". `defaultValue: null` removes the default. */
export interface FieldChangeInput {
  required?: unknown;
  defaultValue?: unknown;
  options?: unknown;
}

export type FieldCheck<T> = { ok: true; value: T } | { ok: false; message: string; conflict?: boolean };

const fail = (message: string, conflict = false): { ok: false; message: string; conflict: boolean } => ({ ok: false, message, conflict });

function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/** `options` of a select field: a non-empty array of distinct, non-blank strings. */
function checkOptions(value: unknown, name: string): FieldCheck<string[]> {
  if (!Array.isArray(value) || value.some((option) => typeof option !== 'string')) return fail(`${name} must be an array of strings`);
  const options = value as string[];
  if (options.length === 0) return fail(`a select field needs ${name} (at least one)`);
  if (options.length > MAX_SELECT_OPTIONS) return fail(`${name} holds at most ${MAX_SELECT_OPTIONS} options`);
  if (options.some((option) => option.trim() === '')) return fail(`${name} must not hold an empty option`);
  if (options.some((option) => !isStorableText(option) || codePoints(option) > MAX_OPTION_LENGTH)) {
    return fail(`${name}: each option is text of at most ${MAX_OPTION_LENGTH} characters`);
  }
  if (new Set(options).size !== options.length) return fail(`${name} repeats an option`);
  return { ok: true, value: options };
}

function checkDefault(
  field: Pick<CustomFieldDefinition, 'type' | 'options'>,
  value: unknown,
  name: string,
): FieldCheck<unknown> {
  if (value === undefined || value === null) return { ok: true, value: null };
  if (!fitsCustomField(field, value)) return fail(`${name} ${JSON.stringify(value)} does not fit a ${field.type} field`);
  return { ok: true, value };
}

/**
 * A new field: key pattern, type, options (select only), default fitting the type; last, a
 * standard field name (`conflict`: the API answers 409 FIELD_KEY_TAKEN, as for a key in use).
 */
export function checkNewField(input: NewFieldInput, names: FieldInputNames = API_FIELD_NAMES): FieldCheck<CustomFieldDefinition> {
  const { key, type } = input;
  if (typeof key !== 'string' || !CUSTOM_FIELD_KEY_PATTERN.test(key)) {
    return fail(`${names.key} must match ${String(CUSTOM_FIELD_KEY_PATTERN)}`);
  }
  if (typeof type !== 'string' || !(CUSTOM_FIELD_TYPES as readonly string[]).includes(type)) {
    return fail(`${names.type} must be one of ${CUSTOM_FIELD_TYPES.join(', ')}`);
  }
  if (input.required !== undefined && typeof input.required !== 'boolean') return fail(`${names.required} must be a boolean`);
  let options: string[] = [];
  if (type === 'select') {
    if (input.options === undefined || input.options === null) return fail(`a select field needs ${names.options}`);
    const checked = checkOptions(input.options, names.options);
    if (!checked.ok) return checked;
    options = checked.value;
  } else if (input.options !== undefined && input.options !== null) {
    return fail(`${names.options} is only for select fields`);
  }
  const fieldType = type as CustomFieldTypeName;
  const defaultValue = checkDefault({ type: fieldType, options }, input.defaultValue, names.defaultValue);
  if (!defaultValue.ok) return defaultValue;
  if (isStandardFieldKey(key)) return fail(`"${key}" is a standard field`, true);
  return { ok: true, value: { key, type: fieldType, required: input.required === true, defaultValue: defaultValue.value, options } };
}

/**
 * A change to an existing field: the type never changes; `options` (select only) may only grow,
 * every existing option kept; the default, new or kept, must fit the field after the change.
 */
export function checkFieldChange(
  current: CustomFieldDefinition,
  change: FieldChangeInput,
  names: FieldInputNames = API_FIELD_NAMES,
): FieldCheck<CustomFieldDefinition> {
  if (change.required !== undefined && typeof change.required !== 'boolean') return fail(`${names.required} must be a boolean`);
  let options = current.options;
  if (change.options !== undefined) {
    if (current.type !== 'select') return fail(`${names.options} is only for select fields`);
    const checked = checkOptions(change.options, names.options);
    if (!checked.ok) return checked;
    const removed = current.options.filter((option) => !checked.value.includes(option));
    if (removed.length > 0) {
      return fail(`${names.options} may only grow: ${removed.map((o) => JSON.stringify(o)).join(', ')} would be removed`);
    }
    options = checked.value;
  }
  // A kept default must still fit: options only grow, so it does; a new one is checked here.
  const defaultValue =
    change.defaultValue === undefined
      ? { ok: true as const, value: current.defaultValue }
      : checkDefault({ type: current.type, options }, change.defaultValue, names.defaultValue);
  if (!defaultValue.ok) return defaultValue;
  return {
    ok: true,
    value: {
      key: current.key,
      type: current.type,
      required: change.required === undefined ? current.required : change.required,
      defaultValue: defaultValue.value,
      options,
    },
  };
}
