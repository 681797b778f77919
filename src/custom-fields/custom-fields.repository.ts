import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { isUniqueViolation } from '../database/database-errors';
import { PrismaService } from '../database/prisma.service';
import { runIn, type SqlClient } from '../database/statements';
import { EventsRepository } from '../events/events.repository';
import { CUSTOM_FIELD_FOR_UPDATE, INSERT_CUSTOM_FIELD, UPDATE_CUSTOM_FIELD } from './custom-fields.statements';
import type { FieldCheck } from './field-checks';
import type { CustomFieldDefinition } from './field-definitions';
import { renderField } from './field-view';

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

/**
 * A custom field and its `field.created` event in one transaction (POST /api/v2/fields and the
 * admin command `field create`). `taken` when the organization already has a field with this key:
 * the unique index (organization, key) decides, so of two concurrent creates one wins and the
 * other is told, never a 500; the loser's transaction (and event) is rolled back whole.
 */
export async function createCustomField(
  database: Database,
  events: EventsRepository,
  organizationId: string,
  field: CustomFieldDefinition,
  requestId: string | null,
): Promise<{ id: string; field: CustomFieldDefinition } | 'taken'> {
  try {
    return await database.transaction((tx) => insertCustomField(tx, events, organizationId, field, requestId));
  } catch (error) {
    if (isUniqueViolation(error)) return 'taken';
    throw error;
  }
}

/**
 * A custom field and its `field.created` event in the caller's transaction `tx`
 * (createCustomField, the demo data); a taken key fails with the unique index's 23505.
 */
export async function insertCustomField(
  tx: SqlClient,
  events: EventsRepository,
  organizationId: string,
  field: CustomFieldDefinition,
  requestId: string | null,
): Promise<{ id: string; field: CustomFieldDefinition }> {
  const [row] = await runIn(tx, INSERT_CUSTOM_FIELD, [organizationId, field.key, field.type, field.required, jsonOrNull(field.defaultValue), field.options]);
  const created = toCustomFieldDefinition(row);
  await events.record(tx, [fieldEvent(organizationId, 'field.created', created, requestId)]);
  return { id: row.id, field: created };
}

/** A default as the jsonb parameter takes it: its JSON text, or SQL NULL for no default (not a JSON null). */
const jsonOrNull = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

function fieldEvent(organizationId: string, type: 'field.created' | 'field.updated', field: CustomFieldDefinition, requestId: string | null) {
  return { organizationId, type, requestId, contactId: null, email: null, data: { field: renderField(field) } };
}

@Injectable()
export class CustomFieldsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly database: Database,
    private readonly events: EventsRepository,
  ) {}

  /** Custom field definitions of an organization, oldest first (GET /fields). */
  async findAll(organizationId: string): Promise<CustomFieldDefinition[]> {
    const rows = await this.prisma.customField.findMany({
      where: { organizationId },
      select: { key: true, type: true, required: true, defaultValue: true, options: true },
      orderBy: [{ createdAt: 'asc' }, { key: 'asc' }],
    });
    return rows.map(toCustomFieldDefinition);
  }

  /** The same definitions by key, as the rules and an import's CSV columns look them up. */
  async findByKey(organizationId: string): Promise<Map<string, CustomFieldDefinition>> {
    return new Map((await this.findAll(organizationId)).map((field) => [field.key, field]));
  }

  /** Stores a checked definition with its event (POST /api/v2/fields): createCustomField. */
  async create(organizationId: string, field: CustomFieldDefinition, requestId: string | null): Promise<CustomFieldDefinition | 'taken'> {
    const created = await createCustomField(this.database, this.events, organizationId, field, requestId);
    return created === 'taken' ? created : created.field;
  }

  /**
   * Changes one field (PATCH /api/v2/fields/{key}): reads it under a row lock, lets `decide` check
   * the change against what is stored (options only grow), and writes the result, in one
   * transaction, so two concurrent changes cannot drop each other's options. The `field.updated`
   * event goes in the same transaction; a change that leaves the field as it was writes neither.
   * Undefined when the organization has no field with this key; the check's failure as it came.
   */
  async update(
    organizationId: string,
    key: string,
    decide: (current: CustomFieldDefinition) => FieldCheck<CustomFieldDefinition>,
    requestId: string | null,
  ): Promise<FieldCheck<CustomFieldDefinition> | undefined> {
    return this.database.transaction(async (tx) => {
      const [row] = await runIn(tx, CUSTOM_FIELD_FOR_UPDATE, [organizationId, key]);
      if (!row) return undefined;
      const current = toCustomFieldDefinition(row);
      const decided = decide(current);
      if (!decided.ok) return decided;
      const next = decided.value;
      // As the API shows a field (a JSON default, options of select fields): equal means no change.
      if (JSON.stringify(renderField(next)) === JSON.stringify(renderField(current))) return decided;
      await runIn(tx, UPDATE_CUSTOM_FIELD, [row.id, next.required, jsonOrNull(next.defaultValue), next.options]);
      await this.events.record(tx, [fieldEvent(organizationId, 'field.updated', next, requestId)]);
      return decided;
    });
  }
}
