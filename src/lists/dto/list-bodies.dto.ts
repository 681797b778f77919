import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { KnownKeysOnly } from '../../validation/known-keys.decorator';
import { MAX_LIST_NAME_LENGTH } from '../list-name';

/*
 * Request bodies of POST and PATCH /api/v2/lists. The DTOs declare the keys (an unknown key is 400
 * INVALID_REQUEST); the values are checked by listNameProblem (list-name.ts), the one check that
 * `list create` on the command line uses too.
 */

const nameDoc = {
  type: String,
  minLength: 1,
  maxLength: MAX_LIST_NAME_LENGTH,
  description: `1 to ${MAX_LIST_NAME_LENGTH} characters (Unicode code points), not only spaces; stored as sent. Names need not be unique.`,
} as const;

@ApiSchema({ name: 'CreateListInput' })
@KnownKeysOnly()
export class CreateListDto {
  @ApiProperty({ ...nameDoc, example: 'Newsletter' })
  @Allow()
  name: unknown = undefined;
}

@ApiSchema({ name: 'UpdateListInput', description: 'At least one of the keys; keys not sent are kept.' })
@KnownKeysOnly()
export class UpdateListDto {
  @ApiPropertyOptional(nameDoc)
  @Allow()
  name: unknown = undefined;

  @ApiPropertyOptional({
    type: Boolean,
    description: 'true archives (memberships stay; contacts can no longer be added: INVALID_LIST), false unarchives',
  })
  @Allow()
  archived: unknown = undefined;
}
