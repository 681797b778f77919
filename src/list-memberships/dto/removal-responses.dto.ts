import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty } from '../../docs/openapi.decorators';
import { REMOVAL_ROW_CODES } from '../list-memberships.service';

/** DELETE /api/v2/lists/{listId}/contacts/{email}. */
@ApiSchema({ name: 'ListRemoval' })
export class ListRemovalModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ description: 'The normalized email' })
  email!: string;

  @ApiProperty({ type: String, format: 'uuid' })
  listId!: string;

  @ApiProperty({ type: String, enum: ['removed', 'unchanged'], description: '`unchanged`: the contact was not a member' })
  status!: 'removed' | 'unchanged';
}

@ApiSchema({ name: 'ListRemovalRow' })
export class ListRemovalRowModel {
  @ApiProperty({ type: 'integer', minimum: 0 })
  index!: number;

  @ApiProperty({ type: String, nullable: true, description: 'The normalized input when it was a string, else null' })
  email!: string | null;

  @ApiProperty({ type: String, enum: ['removed', 'unchanged', 'failed'] })
  status!: 'removed' | 'unchanged' | 'failed';

  @ApiPropertyOptional({ type: String, enum: [...REMOVAL_ROW_CODES], description: 'On failure only' })
  code?: string;

  @ApiPropertyOptional({ type: String, description: 'On failure only' })
  message?: string;
}

/** POST /api/v2/lists/{listId}/contacts/remove. */
@ApiSchema({ name: 'ListRemovalBatch' })
export class ListRemovalBatchModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: [ListRemovalRowModel], description: 'One entry per input row, in input order' })
  results!: ListRemovalRowModel[];
}
