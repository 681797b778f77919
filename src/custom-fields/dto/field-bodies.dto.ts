import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { KnownKeysOnly } from '../../validation/known-keys.decorator';
import { MAX_OPTION_LENGTH, MAX_SELECT_OPTIONS } from '../field-checks';
import { CUSTOM_FIELD_KEY_PATTERN, CUSTOM_FIELD_TYPES } from '../field-definitions';

/*
 * Request bodies of POST /api/v2/fields and PATCH /api/v2/fields/{key}. The DTOs declare the keys
 * (an unknown key is 400 INVALID_REQUEST); the values are checked by field-checks.ts, the checks
 * that `field create` on the command line uses too.
 */

const defaultValueDoc: ApiPropertyOptions & { description: string } = {
  description:
    'A value that fits the field (text ≤ 2,000 characters, finite number, boolean, YYYY-MM-DD date, one of `options`); ' +
    'null or absent: no default',
  oneOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }],
};

const optionsDoc: ApiPropertyOptions & { description: string } = {
  type: [String],
  nullable: true,
  minItems: 1,
  maxItems: MAX_SELECT_OPTIONS,
  description: `select fields only: distinct, non-blank options of at most ${MAX_OPTION_LENGTH} characters`,
};

@ApiSchema({ name: 'CreateFieldInput' })
@KnownKeysOnly()
export class CreateFieldDto {
  @ApiProperty({
    type: String,
    pattern: CUSTOM_FIELD_KEY_PATTERN.source,
    description: 'Case-sensitive; not a standard field name (409 FIELD_KEY_TAKEN), not a key in use (409)',
    example: 'plan',
  })
  @Allow()
  key: unknown = undefined;

  @ApiProperty({ enum: CUSTOM_FIELD_TYPES, description: 'Never changes once created' })
  @Allow()
  type: unknown = undefined;

  @ApiPropertyOptional({ type: Boolean, default: false })
  @Allow()
  required: unknown = undefined;

  @ApiPropertyOptional(defaultValueDoc)
  @Allow()
  defaultValue: unknown = undefined;

  @ApiPropertyOptional({ ...optionsDoc, description: `Required for select fields, refused for others: ${optionsDoc.description}` })
  @Allow()
  options: unknown = undefined;
}

@ApiSchema({ name: 'UpdateFieldInput', description: 'At least one of the keys; keys not sent are kept. The type never changes.' })
@KnownKeysOnly()
export class UpdateFieldDto {
  @ApiPropertyOptional({
    type: Boolean,
    description: 'Existing contacts are not rewritten: the rule applies to each contact on its next create or overwrite',
  })
  @Allow()
  required: unknown = undefined;

  @ApiPropertyOptional({ ...defaultValueDoc, description: `${defaultValueDoc.description} (null removes the default)` })
  @Allow()
  defaultValue: unknown = undefined;

  @ApiPropertyOptional({
    ...optionsDoc,
    description: `The whole new list, every existing option kept (options only grow; removing one is 400): ${optionsDoc.description}`,
  })
  @Allow()
  options: unknown = undefined;
}
