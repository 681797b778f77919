import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty, schemaRef } from '../../docs/openapi.decorators';
import { BatchResponseModel, ContactConflict, ContactFailure } from '../../contacts/dto/contact-responses.dto';

@ApiSchema({ name: 'StoredAnswer' })
export class StoredAnswerModel {
  @ApiProperty({ type: String, format: 'uuid', description: 'The id of the POST' })
  request_id!: string;

  @ApiPropertyOptional({ type: String, description: 'The X-Client-Request-Id the POST sent, when it sent one' })
  client_request_id?: string;

  @ApiProperty({ type: 'integer', description: 'The HTTP status the POST answered' })
  status!: number;

  @ApiProperty({
    description: 'The body as answered',
    oneOf: [schemaRef('ContactSuccess'), schemaRef(ContactFailure), schemaRef(ContactConflict), schemaRef(BatchResponseModel)],
  })
  body!: Record<string, unknown>;
}

/** GET /api/v2/requests/{request_id} and GET /api/v2/requests?clientRequestId= (docs/api.md#lost-responses). */
@ApiSchema({ name: 'StoredResponse' })
export class StoredResponseModel {
  @ApiProperty({ ...requestIdProperty, description: "This GET's own request id" })
  request_id!: string;

  @ApiProperty({ type: StoredAnswerModel })
  original!: StoredAnswerModel;
}
