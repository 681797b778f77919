import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty } from '../../docs/openapi.decorators';
import { CUSTOM_FIELD_KEY_PATTERN, CUSTOM_FIELD_TYPES, type CustomFieldTypeName, STANDARD_FIELD_MAX_LENGTH } from '../field-definitions';

@ApiSchema({ name: 'StandardFieldView' })
export class StandardFieldView {
  @ApiProperty() key!: string;
  @ApiProperty({ enum: ['text'] }) type!: 'text';
  @ApiProperty({ type: 'integer', enum: [STANDARD_FIELD_MAX_LENGTH] }) maxLength!: number;
}

@ApiSchema({ name: 'CustomFieldView' })
export class CustomFieldView {
  @ApiProperty({ type: String, pattern: CUSTOM_FIELD_KEY_PATTERN.source }) key!: string;
  @ApiProperty({ enum: CUSTOM_FIELD_TYPES }) type!: CustomFieldTypeName;
  @ApiProperty() required!: boolean;

  @ApiProperty({
    description: "A value fitting the field's type, or null when there is none",
    oneOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }],
  })
  defaultValue!: unknown;

  @ApiProperty({ type: [String], nullable: true, description: 'The allowed values of a select field; null otherwise' })
  options!: string[] | null;
}

/** GET /api/v2/fields. */
@ApiSchema({ name: 'FieldsResponse' })
export class FieldsResponse {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: [StandardFieldView] })
  standard!: StandardFieldView[];

  @ApiProperty({ type: [CustomFieldView], description: 'Oldest first' })
  custom!: CustomFieldView[];
}
