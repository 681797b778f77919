import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma } from '../generated/prisma/client';
import type { CustomFieldDefinition } from './field-definitions';

/** The app's client or the client of an open transaction. */
export type DatabaseClient = Prisma.TransactionClient;

/**
 * Custom field definitions of an organization, oldest first. Takes the client to use, so the
 * contacts pipeline reads them inside its transaction and GET /fields outside any.
 */
export async function loadCustomFieldDefinitions(db: DatabaseClient, organizationId: string): Promise<CustomFieldDefinition[]> {
  const rows = await db.customField.findMany({
    where: { organizationId },
    select: { key: true, type: true, required: true, defaultValue: true, options: true },
    orderBy: [{ createdAt: 'asc' }, { key: 'asc' }],
  });
  return rows.map(toCustomFieldDefinition);
}

/** A custom_fields row as read (by Prisma, or as JSON by the contacts pipeline's one read). */
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

  findAll(organizationId: string): Promise<CustomFieldDefinition[]> {
    return loadCustomFieldDefinitions(this.prisma, organizationId);
  }
}
