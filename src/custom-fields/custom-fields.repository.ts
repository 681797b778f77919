import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { Prisma } from '../generated/prisma/client';
import type { FieldCheck } from './field-checks';
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
  constructor(private readonly prisma: PrismaService) {}

  /** Custom field definitions of an organization, oldest first (GET /fields). */
  async findAll(organizationId: string): Promise<CustomFieldDefinition[]> {
    const rows = await this.prisma.customField.findMany({
      where: { organizationId },
      select: { key: true, type: true, required: true, defaultValue: true, options: true },
      orderBy: [{ createdAt: 'asc' }, { key: 'asc' }],
    });
    return rows.map(toCustomFieldDefinition);
  }

  /**
   * Stores a checked definition (POST /api/v2/fields). `taken` when the organization already has
   * a field with this key: the unique index (organization, key) decides, so of two concurrent
   * creates one wins and the other is told, never a 500.
   */
  async create(organizationId: string, field: CustomFieldDefinition): Promise<CustomFieldDefinition | 'taken'> {
    try {
      const row = await this.prisma.customField.create({
        data: {
          organizationId,
          key: field.key,
          type: field.type,
          required: field.required,
          options: field.options,
          // No default is SQL NULL, not a JSON null.
          defaultValue: field.defaultValue === null ? Prisma.DbNull : (field.defaultValue as Prisma.InputJsonValue),
        },
      });
      return toCustomFieldDefinition(row);
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') return 'taken';
      throw error;
    }
  }

  /**
   * Changes one field (PATCH /api/v2/fields/{key}): reads it under a row lock, lets `decide` check
   * the change against what is stored (options only grow), and writes the result, in one
   * transaction, so two concurrent changes cannot drop each other's options. Undefined when the
   * organization has no field with this key; the check's failure as it came.
   */
  async update(
    organizationId: string,
    key: string,
    decide: (current: CustomFieldDefinition) => FieldCheck<CustomFieldDefinition>,
  ): Promise<FieldCheck<CustomFieldDefinition> | undefined> {
    return this.prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<(CustomFieldDefinitionRow & { id: string })[]>`
        SELECT id, key, type::text AS type, required, default_value AS "defaultValue", options
        FROM custom_fields WHERE organization_id = ${organizationId} AND key = ${key} FOR UPDATE`;
      if (!row) return undefined;
      const decided = decide(toCustomFieldDefinition(row));
      if (!decided.ok) return decided;
      const next = decided.value;
      await tx.customField.update({
        where: { id: row.id },
        data: {
          required: next.required,
          options: next.options,
          defaultValue: next.defaultValue === null ? Prisma.DbNull : (next.defaultValue as Prisma.InputJsonValue),
        },
      });
      return decided;
    });
  }
}
