import { type ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage, type ValidationError } from 'class-validator';
import { RequestError, invalidRequest } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { BEFORE_ENTRIES } from './before-entries';
import { declaredKeys, KNOWN_KEYS_CONSTRAINT, UNKNOWN_KEYS, unknownKeysOf } from './known-keys.decorator';
import { copyForTransform } from './sent-object';

/** A DTO's validation context may name the request-level code of a failure (default INVALID_REQUEST). */
export interface ConstraintContext {
  code?: RequestErrorCode;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `contacts` + `3` → `contacts[3]`; `contacts[3]` + `listIds` → `contacts[3].listIds`. */
export function joinPath(parent: string, property: string): string {
  if (/^\d+$/.test(property) && parent !== '') return `${parent}[${property}]`;
  if (!IDENTIFIER.test(property)) return `${parent}[${JSON.stringify(property)}]`;
  return parent === '' ? property : `${parent}.${property}`;
}

const earlyChecks = new WeakMap<object, boolean>();

/**
 * Whether a DTO class has BEFORE_ENTRIES checks besides the unknown keys (which the full validation
 * reports first anyway): a DTO without them (the single contact) skips the early pass.
 */
function hasEarlyChecks(metatype: object): boolean {
  let has = earlyChecks.get(metatype);
  if (has === undefined) {
    has = getMetadataStorage()
      .getTargetValidationMetadatas(metatype as new () => unknown, '', false, false, [BEFORE_ENTRIES])
      .some((metadata) => metadata.propertyName !== UNKNOWN_KEYS);
    earlyChecks.set(metatype, has);
  }
  return has;
}

/**
 * The DTO as sent, for the BEFORE_ENTRIES checks: each declared property holds the value sent
 * (nothing copied or transformed, so a 1 MiB array costs nothing here), UNKNOWN_KEYS the keys
 * that @KnownKeysOnly refuses.
 */
function asSent(metatype: object, body: Record<string, unknown>): object {
  const dto = Object.create((metatype as { prototype: object }).prototype) as Record<string, unknown>;
  for (const key of declaredKeys(metatype)) if (Object.hasOwn(body, key)) dto[key] = body[key];
  dto[UNKNOWN_KEYS] = unknownKeysOf(metatype, body);
  return dto;
}

/**
 * The first failure of a validation, as the request-level error of docs/api.md#request-level-errors. At each
 * level the undeclared keys come first, then the properties in declaration order, array entries
 * in index order. Messages are written with `$path`, replaced here by the full path
 * (`contacts[3].listIds`, or `listIds` on the single endpoint).
 */
export function requestErrorOf(errors: ValidationError[], parent = ''): RequestError | undefined {
  const ordered = [...errors].sort((a, b) => Number(b.property === UNKNOWN_KEYS) - Number(a.property === UNKNOWN_KEYS));
  for (const error of ordered) {
    if (error.property === UNKNOWN_KEYS && error.constraints?.[KNOWN_KEYS_CONSTRAINT] !== undefined) {
      const paths = (error.value as string[]).map((key) => joinPath(parent, key));
      return invalidRequest(`Unknown key${paths.length > 1 ? 's' : ''}: ${paths.join(', ')}`);
    }
    const path = joinPath(parent, error.property);
    const [name, message] = Object.entries(error.constraints ?? {})[0] ?? [];
    if (name !== undefined && message !== undefined) {
      const code = (error.contexts?.[name] as ConstraintContext | undefined)?.code ?? RequestErrorCode.INVALID_REQUEST;
      return new RequestError(code, message.replace(/\$path/g, path));
    }
    const nested = requestErrorOf(error.children ?? [], path);
    if (nested) return nested;
  }
  return undefined;
}

/**
 * The one validation of request DTOs (registered globally): class-transformer makes the instance,
 * class-validator checks it, and the first failure is a request-level error rendered by the global
 * filter. `stopAtFirstError`: a property's first failing decorator wins (class-validator runs them
 * bottom-up) and its nested entries are not looked at then. Before the body is copied and
 * transformed, the checks of group BEFORE_ENTRIES run on it as sent (a batch over 50 is refused
 * without reading an entry).
 */
@Injectable()
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      stopAtFirstError: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: true },
      exceptionFactory: (errors: ValidationError[]) => requestErrorOf(errors) ?? invalidRequest('Invalid request'),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // No body (none was sent, or it was empty), or a body that is not an object (null, an array,
    // a scalar): refused before any DTO is made.
    if (metadata.type !== 'body' || !this.toValidate(metadata)) return super.transform(value, metadata);
    if (value === undefined) throw invalidRequest('Request body is empty: a JSON document is required');
    if (!isPlainObject(value)) throw invalidRequest('Request body must be a JSON object');
    const metatype = metadata.metatype!;
    if (hasEarlyChecks(metatype)) {
      const early = await this.validate(asSent(metatype, value), { ...this.validatorOptions, groups: [BEFORE_ENTRIES] });
      if (early.length > 0) throw this.exceptionFactory(early);
    }
    return super.transform(copyForTransform(value), metadata);
  }

  /**
   * Nest deletes `__proto__`, `constructor` and `prototype` keys from the body before transforming.
   * Inside `fields` they are ordinary keys (UNKNOWN_FIELD, or custom fields named `constructor` or
   * `prototype`), and elsewhere @KnownKeysOnly refuses them. The body is transformed from a copy
   * without `__proto__` and `constructor` (sent-object.ts) and `fields` becomes a Map, so no sent
   * key reaches a prototype.
   */
  protected override stripProtoKeys(): void {}

  /** No implicit conversion of query or path values (`?dryRun=yes` must not become false). */
  protected override transformPrimitive(value: unknown): unknown {
    return value;
  }
}
