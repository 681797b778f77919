import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import type { CustomFieldDefinition } from './field-definitions';

/**
 * A custom_fields row as read, by GET /fields here or as JSON by the contacts pipeline's one read
 * statement (same order: created_at, key); both map to a definition the same way.
 */
export interface CustomFieldDefinitionRow {
  key: string;
  type: CustomFieldDefinition['type'];
  required: boolean;
  defaultValue: unknown;
  options: string[] | null;
}

export function toCustomFieldDefinition(row: CustomFieldDefinitionRow): CustomFieldDefinition {
  return {
    key: row.key,
    type: row.type,
    required: row.required,
    // A JSON null default and no default are the same thing: "no default".
    defaultValue: row.defaultValue ?? null,
    options: row.options ?? [],
  };
}

@Injectable()
export class CustomFieldsRepository {
  constructor(private readonly database: Database) {}

  /** Custom field definitions of an organization, oldest first (GET /fields). */
  async findAll(organizationId: string): Promise<CustomFieldDefinition[]> {
    const rows = await this.database.query<CustomFieldDefinitionRow>(
      `SELECT key, type::text AS type, required, default_value AS "defaultValue", options
       FROM custom_fields WHERE organization_id = $1 ORDER BY created_at, key`,
      [organizationId],
    );
    return rows.map(toCustomFieldDefinition);
  }
}
