import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty } from '../../docs/openapi.decorators';
import type { ListView } from '../list-view';

@ApiSchema({ name: 'ListView' })
export class ListViewModel implements ListView {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() archived!: boolean;
}

/** GET /api/v2/lists. */
@ApiSchema({ name: 'ListsResponse' })
export class ListsResponseModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: [ListViewModel], description: 'Archived lists included' })
  lists!: ListViewModel[];
}
