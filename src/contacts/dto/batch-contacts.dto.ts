import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ValidateBy, ValidateNested } from 'class-validator';
import { BatchArray } from '../../validation/batch-array.decorator';
import { KnownKeysOnly } from '../../validation/known-keys.decorator';
import { BATCH_LIMIT } from '../contact-input.shape';
import { CreateContactDto } from './create-contact.dto';

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every entry is an object; the message names the first that is not (`contacts[2] must be an object`). */
const EachIsObject = () =>
  ValidateBy({
    name: 'eachIsObject',
    validator: {
      validate: (value: unknown) => Array.isArray(value) && value.every(isObject),
      defaultMessage: (args) => `$path[${(args?.value as unknown[]).findIndex((entry) => !isObject(entry))}] must be an object`,
    },
  });

/**
 * Body of POST /api/v2/contacts/batch: `{ "contacts": [ ... ] }`, 1 to 50 entries. Decorators run
 * bottom-up and the first failure wins, so the count is checked before anything about the entries
 * (BATCH_LIMIT_EXCEEDED whatever they hold), and an entry is checked only once all are objects.
 * The checks of group BEFORE_ENTRIES run before any entry is copied or transformed.
 */
@ApiSchema({ name: 'BatchInput' })
@KnownKeysOnly()
export class BatchContactsDto {
  @ApiProperty({
    type: [CreateContactDto],
    minItems: 1,
    maxItems: BATCH_LIMIT,
    description: `Empty: 400 INVALID_REQUEST. More than ${BATCH_LIMIT}: 400 BATCH_LIMIT_EXCEEDED.`,
  })
  @ValidateNested({ each: true })
  @EachIsObject()
  @BatchArray({ limit: BATCH_LIMIT, entries: 'contacts', arrayOf: 'contact objects' })
  @Type(() => CreateContactDto)
  contacts!: CreateContactDto[];
}
