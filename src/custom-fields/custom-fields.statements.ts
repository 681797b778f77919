import { defineStatement } from '../database/statements';
import type { CustomFieldDefinition } from './field-definitions';

/** A custom_fields row as these statements read it (the repository's CustomFieldDefinitionRow). */
interface FieldRow {
  id: string;
  key: string;
  type: CustomFieldDefinition['type'];
  required: boolean;
  defaultValue: unknown;
  options: string[] | null;
}

/** The columns of a FieldRow but its id. */
const DEFINITION = `key, type::text AS type, required, default_value AS "defaultValue", options`;

/**
 * A new field of organization $1: key $2, type $3, required $4, default $5 (its JSON text; NULL:
 * no default) and options $6. The unique index (organization, key) refuses a taken key (23505).
 */
export const INSERT_CUSTOM_FIELD = defineStatement<FieldRow>({
  name: 'custom-fields.insert',
  text: `INSERT INTO custom_fields (organization_id, key, type, required, default_value, options)
      VALUES ($1, $2, $3::custom_field_type, $4, $5::jsonb, $6::text[])
      RETURNING id, ${DEFINITION}`,
  columns: ['id', 'key', 'type', 'required', 'defaultValue', 'options'],
  sample: (organizationId) => [organizationId, 'sample', 'text', false, null, []],
});

/** The field $2 of organization $1, locked until the transaction ends (so concurrent changes cannot drop each other's options). */
export const CUSTOM_FIELD_FOR_UPDATE = defineStatement<FieldRow>({
  name: 'custom-fields.for-update',
  text: `SELECT id, ${DEFINITION} FROM custom_fields WHERE organization_id = $1 AND key = $2 FOR UPDATE`,
  columns: ['id', 'key', 'type', 'required', 'defaultValue', 'options'],
  sample: (organizationId) => [organizationId, ''],
});

/** Field $1 becomes required $2, default $3 (JSON text or NULL), options $4. */
export const UPDATE_CUSTOM_FIELD = defineStatement<{ id: string }>({
  name: 'custom-fields.update',
  text: `UPDATE custom_fields SET required = $2, default_value = $3::jsonb, options = $4::text[] WHERE id = $1 RETURNING id`,
  columns: ['id'],
  sample: () => ['', false, null, []],
});

export const CUSTOM_FIELDS_STATEMENTS = [INSERT_CUSTOM_FIELD, CUSTOM_FIELD_FOR_UPDATE, UPDATE_CUSTOM_FIELD];
