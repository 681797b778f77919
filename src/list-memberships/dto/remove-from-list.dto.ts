import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsDefined } from 'class-validator';
import { RequestErrorCode } from '../../errors/error-codes';
import { BEFORE_ENTRIES } from '../../validation/before-entries';
import { KnownKeysOnly } from '../../validation/known-keys.decorator';
import type { ConstraintContext } from '../../validation/request-validation.pipe';
import { REMOVAL_BATCH_LIMIT } from '../list-memberships.service';

const batchLimit: ConstraintContext = { code: RequestErrorCode.BATCH_LIMIT_EXCEEDED };
const groups = [BEFORE_ENTRIES];

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
  @ArrayMaxSize(REMOVAL_BATCH_LIMIT, {
    groups,
    context: batchLimit,
    message: (args) => `A batch holds at most ${REMOVAL_BATCH_LIMIT} emails; ${(args.value as unknown[]).length} were sent`,
  })
  @ArrayNotEmpty({ groups, message: '$path must not be empty' })
  @IsArray({ groups, message: '$path must be an array of emails' })
  @IsDefined({ groups, message: '$path is required' })
  emails!: unknown[];
}
