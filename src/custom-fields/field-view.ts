import type { CustomFieldView } from './dto/fields-response.dto';
import type { CustomFieldDefinition } from './field-definitions';

/**
 * A field as GET /api/v2/fields shows it: `options` only for select fields, null otherwise. Also
 * what `field.created` and `field.updated` events carry as `data.field`.
 */
export function renderField(field: CustomFieldDefinition): CustomFieldView {
  return {
    key: field.key,
    type: field.type,
    required: field.required,
    defaultValue: field.defaultValue ?? null,
    options: field.type === 'select' ? field.options : null,
  };
}
