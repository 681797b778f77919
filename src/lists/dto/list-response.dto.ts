import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty } from '../../docs/openapi.decorators';
import { ListViewModel } from './lists-response.dto';

/** POST /api/v2/lists (201) and PATCH /api/v2/lists/{id} (200). */
@ApiSchema({ name: 'ListResponse' })
export class ListResponseModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: ListViewModel })
  list!: ListViewModel;
}
