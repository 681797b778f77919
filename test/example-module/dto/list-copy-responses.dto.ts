import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty } from '../../../src/docs/openapi.decorators';

@ApiSchema({ name: 'ListCopy' })
export class ListCopyView {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'Contacts copied into the new list' }) members!: number;
}

@ApiSchema({ name: 'ListCopyResponse' })
export class ListCopyResponseModel {
  @ApiProperty(requestIdProperty) request_id!: string;
  @ApiProperty({ type: ListCopyView }) list!: ListCopyView;
}
