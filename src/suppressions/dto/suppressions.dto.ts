import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty } from '../../docs/openapi.decorators';

const REASONS = ['bounced', 'complained', 'unsubscribed'];

@ApiSchema({ name: 'SuppressionInput', description: 'One address to suppress' })
export class SuppressionInputModel {
  @ApiProperty({ type: String, description: 'Checked per row (a missing, non-string or invalid email is INVALID_EMAIL); normalized' })
  email!: string;

  @ApiProperty({ enum: REASONS, description: 'Any other value is a shape error: 400 INVALID_REQUEST for the whole request' })
  reason!: string;
}

@ApiSchema({ name: 'SuppressInput', description: 'Body of POST /api/v2/suppressions; no other key' })
export class SuppressBodyModel {
  @ApiProperty({ type: [SuppressionInputModel], minItems: 1, maxItems: 50 })
  suppressions!: SuppressionInputModel[];
}

@ApiSchema({ name: 'SuppressRow', description: 'The outcome of one row: `reason` on success, `code` and `message` on failure' })
export class SuppressRowModel {
  @ApiProperty({ type: Number, description: 'Index of the row in the request' })
  index!: number;

  @ApiProperty({ type: String, nullable: true, description: 'Normalized input when it was a string, else null' })
  email!: string | null;

  @ApiProperty({ enum: ['suppressed', 'unchanged', 'failed'] })
  status!: string;

  @ApiPropertyOptional({ enum: REASONS, description: 'The reason now kept (for `unchanged`, the reason it already had)' })
  reason?: string;

  @ApiPropertyOptional({ enum: ['INVALID_EMAIL', 'DUPLICATE_IN_REQUEST'] })
  code?: string;

  @ApiPropertyOptional({ type: String })
  message?: string;
}

@ApiSchema({ name: 'SuppressResponse' })
export class SuppressResponseModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: [SuppressRowModel] })
  results!: SuppressRowModel[];
}

@ApiSchema({ name: 'Suppression' })
export class SuppressionModel {
  @ApiProperty({ type: String })
  email!: string;

  @ApiProperty({ enum: REASONS })
  reason!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;
}

@ApiSchema({ name: 'SuppressionsPage' })
export class SuppressionsPageModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: [SuppressionModel], description: 'By email in byte order; erased (hashed) suppressions are not listed' })
  suppressions!: SuppressionModel[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` (with the same `reason`) for the next page; null on the last page' })
  nextCursor!: string | null;
}

@ApiSchema({ name: 'Unsuppressed' })
export class UnsuppressedModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: String, description: 'The normalized email' })
  email!: string;

  @ApiProperty({ enum: ['unsuppressed'] })
  status!: string;
}
