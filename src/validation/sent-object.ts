/**
 * class-transformer guesses the class of an untyped object from `value.constructor`, which a JSON
 * key named `constructor` overrides (`{"constructor": 1}` anywhere in a body would crash it), and
 * it silently drops keys named `__proto__` and `constructor`. So it works on a copy without those
 * two keys, and the DTO transforms that need the object as sent (its keys, the keys of `fields`)
 * read the original through `sentObject`.
 */
const originals = new WeakMap<object, object>();

/**
 * Deeper than any DTO reads: below it an object or array is copied as an empty one of its kind
 * (still "not a string", "an object"...). A JSON value nested 100,000 deep would otherwise
 * overflow the stack here and in class-transformer, which both recurse; data read as sent
 * (`fields` values) comes from the original.
 */
const MAX_COPY_DEPTH = 16;

/** A copy of parsed JSON without `__proto__` and `constructor` keys; each copied object remembers its original. */
export function copyForTransform(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_COPY_DEPTH) return Array.isArray(value) ? [] : {};
  if (Array.isArray(value)) return value.map((entry) => copyForTransform(entry, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key !== '__proto__' && key !== 'constructor') copy[key] = copyForTransform(entry, depth + 1);
  }
  originals.set(copy, value);
  return copy;
}

/** The object as sent, for an object of the copy (itself otherwise). */
export function sentObject(copy: object): Record<string, unknown> {
  return (originals.get(copy) ?? copy) as Record<string, unknown>;
}
