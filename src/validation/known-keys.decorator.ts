import { Expose, Transform } from 'class-transformer';
import { getMetadataStorage, ValidateBy } from 'class-validator';
import { sentObject } from './sent-object';

/** The property of a DTO instance that holds the keys sent but not declared (empty when valid). */
export const UNKNOWN_KEYS = '$unknownKeys';
export const KNOWN_KEYS_CONSTRAINT = 'knownKeysOnly';

/**
 * Refuses every key of the sent object that the DTO does not declare (a property with a
 * class-validator decorator, `@Allow()` included). Nest's `forbidNonWhitelisted` cannot do this
 * here: it looks at the instance class-transformer built, and class-transformer silently drops
 * keys named `__proto__` and `constructor`, so those would pass unseen. This looks at the keys as
 * sent (the factory of RequestValidationPipe names each as a path, e.g. `contacts[1].tags`).
 */
export function KnownKeysOnly(): ClassDecorator {
  return (target) => {
    let known: ReadonlySet<string> | undefined;
    const knownKeys = () =>
      (known ??= new Set(
        getMetadataStorage()
          .getTargetValidationMetadatas(target, '', true, false)
          .map((metadata) => metadata.propertyName)
          .filter((name) => name !== UNKNOWN_KEYS),
      ));
    const prototype = target.prototype as object;
    // Exposed, so class-transformer calls the transform even though no client sends this key.
    Expose()(prototype, UNKNOWN_KEYS);
    Transform(({ obj }: { obj: object }) => Object.keys(sentObject(obj)).filter((key) => !knownKeys().has(key)), { toClassOnly: true })(
      prototype,
      UNKNOWN_KEYS,
    );
    ValidateBy({
      name: KNOWN_KEYS_CONSTRAINT,
      validator: {
        validate: (value: unknown) => Array.isArray(value) && value.length === 0,
        defaultMessage: () => 'Unknown keys in $path',
      },
    })(prototype, UNKNOWN_KEYS);
  };
}
