/**
 * The ten per-contact rules and the outcomes of docs/api.md#rules-and-codes, as pure
 * functions. Rules 1–3 need nothing but the request (`screenContacts`); rules 4–10 need what the
 * database knows about the organization and the emails (`planContact` with a RuleContext). The
 * first rule that fails is the contact's code.
 */
import {
  type CustomFieldDefinition,
  STANDARD_FIELD_KEYS,
  type StandardFieldKey,
  fitsCustomField,
  fitsStandardField,
  isStandardFieldKey,
} from '../custom-fields/field-definitions';
import { SuppressionReason } from '../generated/prisma/enums';
import { ContactErrorCode } from './contact-error-codes';
import type { ContactInput } from './contact-input.shape';
import { isValidEmail, normalizeEmail } from './email';

export const MAX_LIST_IDS = 20;

export type ContactFailureCode = ContactErrorCode;
/** From the Prisma enum (schema.prisma), the one list of reasons. */
export { SuppressionReason };
export const SUPPRESSION_REASONS: readonly SuppressionReason[] = Object.values(SuppressionReason);

export interface ContactFailure {
  outcome: 'failed';
  code: ContactFailureCode;
  message: string;
  /** Only with INVALID_LIST: each offending id once, in order of first appearance. */
  invalidListIds?: string[];
  /** Only with SUPPRESSED_EMAIL. */
  suppressionReason?: SuppressionReason;
}

export type StandardValues = Record<StandardFieldKey, string | null>;
/** Custom field values by key; only keys with a value (never null). */
export type CustomValues = Map<string, unknown>;

export interface PlannedCreate {
  outcome: 'created';
  email: string;
  standard: StandardValues;
  custom: CustomValues;
  /** Distinct list ids, in request order. */
  listIds: string[];
}

export interface PlannedUpdate {
  outcome: 'updated';
  email: string;
  contactId: string;
  /** The whole row after the change (merge of stored and given values). */
  standard: StandardValues;
  custom: CustomValues;
  changedFields: string[];
  addedListIds: string[];
}

export interface PlannedUnchanged {
  outcome: 'unchanged';
  email: string;
  contactId: string;
}

export type PlannedChange = PlannedCreate | PlannedUpdate | PlannedUnchanged;

/** A row after rules 1–3: failed, or a candidate with its normalized email. */
export type ScreenedRow =
  | { kind: 'failed'; email: string | null; failure: ContactFailure }
  | { kind: 'candidate'; email: string; input: ContactInput };

export interface ExistingContact {
  id: string;
  email: string;
  standard: StandardValues;
  custom: ReadonlyMap<string, unknown>;
  listIds: ReadonlySet<string>;
}

/** What the database knows, read inside the transaction after the emails are locked. */
export interface RuleContext {
  /** Ids of the organization's lists that are not archived (among those asked about). */
  activeListIds: ReadonlySet<string>;
  customFields: ReadonlyMap<string, CustomFieldDefinition>;
  /** By normalized email. */
  existingContacts: ReadonlyMap<string, ExistingContact>;
  /** By normalized email, plain and erased (kept under a hash) alike: rule 8 treats them the same. */
  suppressions: ReadonlyMap<string, SuppressionReason>;
  /** The emails among `suppressions` whose suppression is erased (the address stored nowhere). */
  erasedSuppressions?: ReadonlySet<string>;
}

const fail = (code: ContactFailureCode, message: string, extra: Partial<ContactFailure> = {}): ContactFailure => ({
  outcome: 'failed',
  code,
  message,
  ...extra,
});

const quoteAll = (keys: readonly string[]) => keys.map((key) => JSON.stringify(key)).join(', ');

/** Every standard field, in STANDARD_FIELD_KEYS order, without a value: copied by emptyStandardValues. */
const NO_STANDARD_VALUES: Readonly<StandardValues> = Object.freeze(
  Object.fromEntries(STANDARD_FIELD_KEYS.map((key) => [key, null])) as StandardValues,
);

export function emptyStandardValues(): StandardValues {
  // A copy of one object (same keys, same order, writable): not Object.fromEntries per contact.
  return { ...NO_STANDARD_VALUES };
}

/** Rules 1–3, for every row of a request in order (a single contact is a batch of one). */
export function screenContacts(inputs: readonly ContactInput[]): ScreenedRow[] {
  const firstRowOf = new Map<string, number>();
  return inputs.map((input, index): ScreenedRow => {
    const raw = input.email;
    // Rule 1.
    if (typeof raw !== 'string') {
      const message = raw === undefined ? 'email is required' : 'email must be a string';
      return { kind: 'failed', email: null, failure: fail(ContactErrorCode.INVALID_EMAIL, message) };
    }
    const email = normalizeEmail(raw);
    if (!isValidEmail(email)) {
      return { kind: 'failed', email, failure: fail(ContactErrorCode.INVALID_EMAIL, 'email is not a valid email address') };
    }
    // Rule 2: the first row with an email is processed, whatever happens to it later.
    const first = firstRowOf.get(email);
    if (first !== undefined) {
      const message = `email already appears in row ${first} of this request; rows are never merged`;
      return { kind: 'failed', email, failure: fail(ContactErrorCode.DUPLICATE_IN_REQUEST, message) };
    }
    firstRowOf.set(email, index);
    // Rule 3.
    const listIds = input.listIds ?? [];
    if (listIds.length === 0) {
      return { kind: 'failed', email, failure: fail(ContactErrorCode.EMPTY_LIST_IDS, 'listIds must hold at least one list id') };
    }
    if (listIds.length > MAX_LIST_IDS) {
      const message = `listIds holds ${listIds.length} entries; at most ${MAX_LIST_IDS} are allowed`;
      return { kind: 'failed', email, failure: fail(ContactErrorCode.TOO_MANY_LIST_IDS, message) };
    }
    return { kind: 'candidate', email, input };
  });
}

const hasDefault = (definition: CustomFieldDefinition) =>
  definition.defaultValue !== null && definition.defaultValue !== undefined;

/** Values are JSON scalars; anything else stored is compared by its JSON text. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return false;
}

/** Rules 4–10 and the outcome (created / updated / unchanged) of one candidate row. */
export function planContact(email: string, input: ContactInput, context: RuleContext): ContactFailure | PlannedChange {
  const listIds = [...new Set(input.listIds ?? [])];

  // Rule 4: missing, archived and foreign lists are indistinguishable.
  const invalidListIds = listIds.filter((id) => !context.activeListIds.has(id));
  if (invalidListIds.length > 0) {
    return fail(ContactErrorCode.INVALID_LIST, `Unknown or archived list: ${quoteAll(invalidListIds)}`, { invalidListIds });
  }

  // Rule 5: names are case-sensitive.
  const given = [...input.fields.entries()];
  const unknownKeys = given.map(([key]) => key).filter((key) => !isStandardFieldKey(key) && !context.customFields.has(key));
  if (unknownKeys.length > 0) {
    return fail(ContactErrorCode.UNKNOWN_FIELD, `Unknown field: ${quoteAll(unknownKeys)}`);
  }

  // Rule 6: null always fits here (rule 7 decides about null for required fields).
  const mismatched = given
    .filter(([key, value]) => {
      if (value === null) return false;
      if (isStandardFieldKey(key)) return !fitsStandardField(value);
      return !fitsCustomField(context.customFields.get(key) as CustomFieldDefinition, value);
    })
    .map(([key]) => key);
  if (mismatched.length > 0) {
    const described = mismatched.map((key) => {
      const definition = isStandardFieldKey(key) ? undefined : context.customFields.get(key);
      return `${JSON.stringify(key)} (${definition ? definition.type : 'text of at most 255 characters'})`;
    });
    return fail(ContactErrorCode.FIELD_TYPE_MISMATCH, `Value does not fit field ${described.join(', ')}`);
  }

  // Rule 7.
  const clearedRequired = given
    .filter(([key, value]) => value === null && context.customFields.get(key)?.required === true)
    .map(([key]) => key);
  if (clearedRequired.length > 0) {
    return fail(ContactErrorCode.REQUIRED_FIELD_MISSING, `A required field cannot be cleared: ${quoteAll(clearedRequired)}`);
  }

  // Rules 8 and 9.
  const suppressionReason = context.suppressions.get(email);
  if (suppressionReason !== undefined && !input.overwrite) {
    return fail(ContactErrorCode.SUPPRESSED_EMAIL,
      `The email is suppressed (${suppressionReason}); send overwrite: true to update the contact's data`,
      { suppressionReason },
    );
  }
  const existing = context.existingContacts.get(email);
  if (existing && !input.overwrite) {
    return fail(ContactErrorCode.DUPLICATE_EMAIL, 'A contact with this email already exists; send overwrite: true to update it');
  }

  return existing ? planUpdate(existing, given, listIds, context) : planCreate(email, given, listIds, context);
}

function planCreate(
  email: string,
  given: Array<[string, unknown]>,
  listIds: string[],
  context: RuleContext,
): ContactFailure | PlannedCreate {
  const standard = emptyStandardValues();
  const custom: CustomValues = new Map();
  for (const [key, value] of given) {
    if (isStandardFieldKey(key)) standard[key] = value as string | null;
    else if (value !== null) custom.set(key, value);
  }
  // Defaults fill what the input does not set; an explicit null means "no value" (docs/api.md#fields).
  const givenKeys = new Set(given.map(([key]) => key));
  for (const definition of context.customFields.values()) {
    if (!givenKeys.has(definition.key) && hasDefault(definition)) custom.set(definition.key, definition.defaultValue);
  }
  const missing = missingRequired(custom, context);
  if (missing) return missing;
  return { outcome: 'created', email, standard, custom, listIds };
}

function planUpdate(
  existing: ExistingContact,
  given: Array<[string, unknown]>,
  listIds: string[],
  context: RuleContext,
): ContactFailure | PlannedUpdate | PlannedUnchanged {
  const standard: StandardValues = { ...existing.standard };
  const custom: CustomValues = new Map(existing.custom);
  const changed = new Set<string>();
  // Merge: given keys are set, null clears, keys not given keep their value.
  for (const [key, value] of given) {
    if (isStandardFieldKey(key)) {
      if (!sameValue(standard[key], value)) changed.add(key);
      standard[key] = value as string | null;
    } else if (value === null) {
      if (custom.delete(key)) changed.add(key);
    } else {
      if (!sameValue(custom.get(key), value)) changed.add(key);
      custom.set(key, value);
    }
  }
  // A required field still without a value gets its default, a change like any other.
  for (const definition of context.customFields.values()) {
    if (definition.required && !custom.has(definition.key) && hasDefault(definition)) {
      custom.set(definition.key, definition.defaultValue);
      changed.add(definition.key);
    }
  }
  const missing = missingRequired(custom, context);
  if (missing) return missing;

  const addedListIds = listIds.filter((id) => !existing.listIds.has(id));
  if (changed.size === 0 && addedListIds.length === 0) {
    return { outcome: 'unchanged', email: existing.email, contactId: existing.id };
  }
  return {
    outcome: 'updated',
    email: existing.email,
    contactId: existing.id,
    standard,
    custom,
    changedFields: [...changed].sort(),
    addedListIds,
  };
}

/** Rule 10: after applying the input (and defaults), every required field has a value. */
function missingRequired(custom: CustomValues, context: RuleContext): ContactFailure | undefined {
  const missing = [...context.customFields.values()]
    .filter((definition) => definition.required && !custom.has(definition.key))
    .map((definition) => definition.key);
  if (missing.length === 0) return undefined;
  return fail(ContactErrorCode.REQUIRED_FIELD_MISSING, `A required field has no value and no default: ${quoteAll(missing)}`);
}
