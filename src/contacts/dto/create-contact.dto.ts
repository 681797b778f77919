import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Allow, IsArray, IsBoolean, IsInstance, IsString, ValidateIf } from 'class-validator';
import { KnownKeysOnly } from '../../validation/known-keys.decorator';
import { sentObject } from '../../validation/sent-object';
import type { ContactInput } from '../contact-input.shape';

/** `fields` as sent (not class-transformer's copy), key by key into a Map: `__proto__` and `constructor` stay ordinary keys. */
function toFieldMap(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value; // refused below
  const fields = new Map<string, unknown>();
  for (const key of Object.keys(value)) fields.set(key, (value as Record<string, unknown>)[key]);
  return fields;
}

// `null` is present, and a shape error (docs/api.md#a-contact): hence `ValidateIf(!== undefined)`,
// not `@IsOptional()`, which would take null for absent.
const whenSent = (property: keyof CreateContactDto) => ValidateIf((dto: CreateContactDto) => dto[property] !== undefined);

/**
 * One contact input (docs/api.md#a-contact): the body of POST /api/v2/contacts and each entry of a
 * batch. Only the shape is checked here (a shape error is the request's 400 INVALID_REQUEST); the
 * per-contact rules (rule 1 for `email`, field types) are domain logic in contact-rules.ts.
 */
@ApiSchema({ name: 'ContactInput' })
@KnownKeysOnly()
export class CreateContactDto implements ContactInput {
  @ApiPropertyOptional({
    type: String,
    example: 'ada@example.com',
    description:
      'Checked per contact, not as a shape (a missing or non-string email is INVALID_EMAIL): ASCII only, trimmed and ' +
      'lowercased, local part ≤ 64 and address ≤ 254 characters, domain with at least one dot. ' +
      'Internationalized addresses are refused.',
  })
  @Allow()
  email: unknown = undefined;

  @ApiPropertyOptional({
    type: [String],
    description: '1 to 20 list ids (EMPTY_LIST_IDS, TOO_MANY_LIST_IDS, INVALID_LIST). `null` is a shape error.',
  })
  @IsString({ each: true, message: '$path must be an array of strings' })
  @IsArray({ message: '$path must be an array of strings' })
  @whenSent('listIds')
  listIds: string[] | undefined = undefined;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { description: 'string, number, boolean or null, as the field type requires' },
    description:
      'Standard fields (firstName, lastName, phone, company, jobTitle, city, country: strings ≤ 255 code points) and the ' +
      "organization's custom fields (GET /api/v2/fields). `null` clears a field. Merged on update. `null` for the whole " +
      'object is a shape error.',
  })
  @IsInstance(Map, { message: '$path must be an object' })
  @whenSent('fields')
  @Transform(({ obj }: { obj: object }) => toFieldMap(sentObject(obj).fields), { toClassOnly: true })
  fields: ReadonlyMap<string, unknown> = new Map();

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'true updates an existing or suppressed contact. `null` is a shape error.',
  })
  @IsBoolean({ message: '$path must be a boolean' })
  @whenSent('overwrite')
  overwrite: boolean = false;
}
