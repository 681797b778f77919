import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { BatchArray } from '../../validation/batch-array.decorator';
import { KnownKeysOnly } from '../../validation/known-keys.decorator';
import { REMOVAL_BATCH_LIMIT } from '../list-memberships.service';

/**
 * Body of POST /api/v2/lists/{listId}/contacts/remove: `{ "emails": [ ... ] }`, 1 to 50 entries,
 * counted before anything about them (decorators run bottom-up, the first failure wins). An entry
 * that is not a string is that row's INVALID_EMAIL, not a shape error (as `email` in a contact).
 */
@ApiSchema({ name: 'RemoveFromListInput' })
@KnownKeysOnly()
export class RemoveFromListDto {
  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: REMOVAL_BATCH_LIMIT,
    description: `Emails, normalized before use. Empty: 400 INVALID_REQUEST. More than ${REMOVAL_BATCH_LIMIT}: 400 BATCH_LIMIT_EXCEEDED.`,
  })
  @BatchArray({ limit: REMOVAL_BATCH_LIMIT, entries: 'emails', arrayOf: 'emails' })
  emails!: unknown[];
}
