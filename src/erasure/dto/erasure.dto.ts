import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty } from '../../docs/openapi.decorators';

@ApiSchema({ name: 'Erased', description: 'What an erasure removed; an address the organization never had is all zeros' })
export class ErasedModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ enum: ['erased'] })
  status!: string;

  @ApiProperty({ type: Boolean, description: 'A contact (and its memberships) was deleted' })
  contactDeleted!: boolean;

  @ApiProperty({ type: Boolean, description: 'The address stays suppressed, kept only as a keyed hash (reason kept)' })
  suppressionKept!: boolean;

  @ApiProperty({ type: Number, description: 'Stored answers (GET /api/v2/requests) that held the address, each erased whole' })
  storedAnswersErased!: number;

  @ApiProperty({ type: Number, description: 'Events whose payload held the address, redacted' })
  eventsRedacted!: number;

  @ApiProperty({ type: Number, description: 'Import rows that held the address: their content removed, their result line kept with email null' })
  importRowsErased!: number;
}
