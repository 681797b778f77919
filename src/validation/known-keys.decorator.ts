import { Expose, Transform } from 'class-transformer';
import { getMetadataStorage, ValidateBy } from 'class-validator';
import { BEFORE_ENTRIES } from './before-entries';
import { sentObject } from './sent-object';

/** The property of a DTO instance that holds the keys sent but not declared (empty when valid). */
export const UNKNOWN_KEYS = '$unknownKeys';
export const KNOWN_KEYS_CONSTRAINT = 'knownKeysOnly';

const declared = new WeakMap<object, ReadonlySet<string>>();

/** The properties a DTO class declares: those with a class-validator decorator, `@Allow()` included. */
export function declaredKeys(target: object): ReadonlySet<string> {
  let keys = declared.get(target);
  if (keys === undefined) {
    keys = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(target as new () => unknown, '', true, false)
        .map((metadata) => metadata.propertyName)
        .filter((name) => name !== UNKNOWN_KEYS),
    );
    declared.set(target, keys);
  }
  return keys;
}

/** The keys of an object as sent that the DTO class does not declare. */
export function unknownKeysOf(target: object, sent: object): string[] {
  const known = declaredKeys(target);
  return Object.keys(sent).filter((key) => !known.has(key));
}

/**
 * Refuses every key of the sent object that the DTO does not declare (a property with a
 * class-validator decorator, `@Allow()` included). Nest's `forbidNonWhitelisted` cannot do this
 * here: it looks at the instance class-transformer built, and class-transformer silently drops
 * keys named `__proto__` and `constructor`, so those would pass unseen. This looks at the keys as
 * sent (the factory of RequestValidationPipe names each as a path, e.g. `contacts[1].tags`).
 * Checked before the entries (BEFORE_ENTRIES): an unknown key beside `contacts` comes before the count.
 */
export function KnownKeysOnly(): ClassDecorator {
  return (target) => {
    const prototype = target.prototype as object;
    // Exposed, so class-transformer calls the transform even though no client sends this key.
    Expose()(prototype, UNKNOWN_KEYS);
    Transform(({ obj }: { obj: object }) => unknownKeysOf(target, sentObject(obj)), { toClassOnly: true })(prototype, UNKNOWN_KEYS);
    ValidateBy(
      {
        name: KNOWN_KEYS_CONSTRAINT,
        validator: {
          validate: (value: unknown) => Array.isArray(value) && value.length === 0,
          defaultMessage: () => 'Unknown keys in $path',
        },
      },
      { groups: [BEFORE_ENTRIES] },
    )(prototype, UNKNOWN_KEYS);
  };
}
