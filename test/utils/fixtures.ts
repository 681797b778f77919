import { PrismaPg } from '@prisma/adapter-pg';
import type { Client } from 'pg';
import type { INestApplication } from '@nestjs/common';
import { ContactsRepository } from '../../src/contacts/contacts.repository';
import { Database } from '../../src/database/database';
import { generateApiKey } from '../../src/auth/api-key';
import { type Scope, toPrismaScope } from '../../src/auth/scope-names';
import { PrismaClient, type CustomFieldType, type SuppressionReason } from '../../src/generated/prisma/client';

/** The app's PrismaService or a client of its own (createOrgOn): the fixtures need only the client. */
type PrismaService = PrismaClient;

/**
 * Rows a test needs, written straight to its own database. Every helper creates new rows, so
 * tests never share mutable state.
 */
export async function createOrganization(prisma: PrismaService, name = 'Test org', scope?: Scope) {
  const org = await prisma.organization.create({ data: { name } });
  const apiKey = await createApiKey(prisma, org.id, { scope });
  return { id: org.id, apiKey: apiKey.key, apiKeyId: apiKey.id };
}

export type CustomFieldSpec = { key: string; type: CustomFieldType; required?: boolean; defaultValue?: unknown; options?: string[] };

/**
 * The starting point of most tests: an organization with an API key, the lists named (in order)
 * and the custom fields given.
 */
export async function createOrgWith(
  prisma: PrismaService,
  setup: { name?: string; lists?: string[]; archivedLists?: string[]; fields?: CustomFieldSpec[]; scope?: Scope } = {},
) {
  const org = await createOrganization(prisma, setup.name, setup.scope);
  const lists = [];
  for (const name of setup.lists ?? []) lists.push(await createList(prisma, org.id, name));
  const archivedLists = [];
  for (const name of setup.archivedLists ?? []) archivedLists.push(await createList(prisma, org.id, name, true));
  for (const field of setup.fields ?? []) await createCustomField(prisma, org.id, field);
  return { ...org, lists, archivedLists };
}

/**
 * createOrgWith for a test without an app in the process (one that spawns the service): the rows are
 * written through a Prisma client of its own on `databaseUrl`, closed before it returns.
 */
export async function createOrgOn(databaseUrl: string, setup: Parameters<typeof createOrgWith>[1] = {}) {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  try {
    return await createOrgWith(prisma, setup);
  } finally {
    await prisma.$disconnect();
  }
}

export async function createApiKey(
  prisma: PrismaService,
  organizationId: string,
  options: { expiresAt?: Date; revokedAt?: Date; scope?: Scope } = {},
) {
  const { key, prefix, keyHash } = generateApiKey();
  const { scope, ...dates } = options;
  // Without a scope: the column's default (contacts:write), as for `key create` without --scope.
  const row = await prisma.apiKey.create({
    data: { organizationId, prefix, keyHash, ...dates, ...(scope ? { scope: toPrismaScope(scope) } : {}) },
  });
  return { id: row.id, key };
}

export async function createList(prisma: PrismaService, organizationId: string, name = 'List', archived = false) {
  return prisma.list.create({ data: { organizationId, name, archived } });
}

export async function createCustomField(
  prisma: PrismaService,
  organizationId: string,
  field: CustomFieldSpec,
) {
  return prisma.customField.create({
    data: {
      organizationId,
      key: field.key,
      type: field.type,
      required: field.required ?? false,
      defaultValue: field.defaultValue === undefined ? undefined : (field.defaultValue as never),
      options: field.options ?? [],
    },
  });
}

export async function suppress(prisma: PrismaService, organizationId: string, email: string, reason: SuppressionReason) {
  return prisma.suppression.create({ data: { organizationId, email, reason } });
}

/**
 * `contact.created` events for contacts `<prefix><g>`, g from `from` to `to`, committed in one
 * statement as the write paths make them (body included): a webhook backlog without the API's cost.
 */
export async function insertContactEvents(pg: Pick<Client, 'query'>, orgId: string, prefix: string, from: number, to: number): Promise<void> {
  await pg.query(
    `INSERT INTO events (organization_id, id, type, contact_id, body)
     SELECT $1, u.id, 'contact.created', $4::text || u.g,
       '{"id":"evt_' || replace(u.id::text, '-', '') || '","type":"contact.created","occurredAt":"2026-11-24T00:00:00.000Z","requestId":null,'
         || '"data":{"contact":{"id":"' || $4::text || u.g || '"}}}'
     FROM (SELECT g, gen_random_uuid() AS id FROM generate_series($2::int, $3::int) g) u`,
    [orgId, from, to, prefix],
  );
}

/**
 * A transaction of `app` that holds the per-email lock of `email` (ContactsRepository.lockEmails,
 * what every write of that address takes first) until `release` is called.
 */
export async function holdEmailLock(app: INestApplication, organizationId: string, email: string): Promise<{ release: () => Promise<void> }> {
  const database = app.get(Database);
  const contacts = app.get(ContactsRepository);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = database.transaction(async (tx) => {
    await contacts.lockEmails(tx, organizationId, [email]);
    locked();
    await released;
  });
  await isLocked;
  return {
    release: async () => {
      release();
      await holder;
    },
  };
}
