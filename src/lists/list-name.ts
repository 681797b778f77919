import { isStorableText } from '../common/storable-text';

/** List names (docs/api.md, "Lists"): 1–255 code points of text, not only whitespace. */
export const MAX_LIST_NAME_LENGTH = 255;

/**
 * The one check of a list name, for POST and PATCH /api/v2/lists and `list create` alike: the
 * problem as a message naming the input `name`, or undefined when the name is good.
 */
export function listNameProblem(value: unknown, name = 'name'): string | undefined {
  if (typeof value !== 'string') return `${name} must be a string`;
  let length = 0;
  for (const _ of value) length++;
  if (length < 1 || length > MAX_LIST_NAME_LENGTH || value.trim() === '') {
    return `${name} must be 1 to ${MAX_LIST_NAME_LENGTH} characters, not only spaces`;
  }
  if (!isStorableText(value)) return `${name} must be text (no U+0000 or lone surrogates)`;
  return undefined;
}
