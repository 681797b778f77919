/**
 * class-transformer guesses the class of an untyped object from `value.constructor`, which a JSON
 * key named `constructor` overrides (`{"constructor": 1}` anywhere in a body would crash it), and
 * it silently drops keys named `__proto__` and `constructor`. So it works on a copy without those
 * two keys, and the DTO transforms that need the object as sent (its keys, the keys of `fields`)
 * read the original through `sentObject`.
 */
const originals = new WeakMap<object, object>();

/** A copy of parsed JSON without `__proto__` and `constructor` keys; each copied object remembers its original. */
export function copyForTransform(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyForTransform);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key !== '__proto__' && key !== 'constructor') copy[key] = copyForTransform(entry);
  }
  originals.set(copy, value);
  return copy;
}

/** The object as sent, for an object of the copy (itself otherwise). */
export function sentObject(copy: object): Record<string, unknown> {
  return (originals.get(copy) ?? copy) as Record<string, unknown>;
}
