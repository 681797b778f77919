import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty } from '../../docs/openapi.decorators';
import { CustomFieldView } from './fields-response.dto';

/** POST /api/v2/fields (201) and PATCH /api/v2/fields/{key} (200): the field as GET /fields shows it. */
@ApiSchema({ name: 'FieldResponse' })
export class FieldResponseModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: CustomFieldView })
  field!: CustomFieldView;
}
