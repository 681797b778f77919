import { generateApiKey } from '../auth/api-key';
import { fromPrismaScope, toPrismaScope } from '../auth/scope-names';
import type { PrismaService } from '../database/prisma.service';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError } from '../errors/request-error';
import { ErasureSecrets } from '../suppressions/erasure-secrets';
import { AdminArgumentError, type AdminCommand } from './admin-arguments';

/**
 * What the administration commands do (docs/api.md#running-and-administration), without the process
 * around them (cli.ts): `executeAdminCommand` does the work of a command that admin-arguments.ts
 * parsed and checks what needs the database (unknown ids, duplicate field keys).
 */

/** The database settings an admin client takes from the configuration (defaults: the service's). */
export interface AdminClientSettings {
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  lockTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
}

/**
 * The clients the commands run on: the service's own (`Database`, and Prisma Client over its
 * pool), on a pool of two (a command runs one transaction at a time, and a read outside it).
 * Close with closeAdminClient.
 */
export function openAdminClient(url: string, settings: AdminClientSettings = {}): PrismaService {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { Database } = require('../database/database') as typeof import('../database/database');
  const { PrismaService } = require('../database/prisma.service') as typeof import('../database/prisma.service');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const statementTimeoutMs = settings.statementTimeoutMs ?? 5000;
  const database = new Database({
    url,
    poolSize: 2,
    connectTimeoutMs: settings.connectTimeoutMs ?? 3000,
    statementTimeoutMs,
    lockTimeoutMs: settings.lockTimeoutMs ?? Math.floor(statementTimeoutMs * 0.6),
    idleInTransactionTimeoutMs: settings.idleInTransactionTimeoutMs ?? 10_000,
  });
  return new PrismaService(database);
}

export async function closeAdminClient(prisma: PrismaService): Promise<void> {
  await prisma.$disconnect();
  await prisma.database.onModuleDestroy();
}

/**
 * Runs a parsed command (all but `migrate`, which cli.ts runs); returns the JSON object the CLI prints.
 * Changes write their change events like the API's (contract section 16), with `requestId` null.
 */
export async function executeAdminCommand(
  prisma: PrismaService,
  command: Exclude<AdminCommand, { command: 'migrate' }>,
): Promise<Record<string, unknown>> {
  switch (command.command) {
    case 'export':
    case 'import':
      // They stream through connections of their own: admin-command-line.ts runs them (export.command.ts, import.command.ts).
      throw new Error(`${command.command} runs from the command line only`);
    case 'org list': {
      const rows = await prisma.organization.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
      return { organizations: rows.map((o) => ({ id: o.id, name: o.name, createdAt: o.createdAt.toISOString() })) };
    }
    case 'key list': {
      await requireOrganization(prisma, command.org, command.command);
      // Selected column by column: the hash never leaves the database.
      const rows = await prisma.apiKey.findMany({
        where: { organizationId: command.org },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: { id: true, prefix: true, scope: true, createdAt: true, lastUsedAt: true, expiresAt: true, revokedAt: true },
      });
      return {
        keys: rows.map((k) => ({
          id: k.id,
          prefix: k.prefix,
          scope: fromPrismaScope(k.scope),
          createdAt: k.createdAt.toISOString(),
          lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
          expiresAt: k.expiresAt?.toISOString() ?? null,
          revokedAt: k.revokedAt?.toISOString() ?? null,
        })),
      };
    }
    case 'list list': {
      await requireOrganization(prisma, command.org, command.command);
      const rows = await prisma.list.findMany({ where: { organizationId: command.org }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
      return { lists: rows.map((l) => ({ id: l.id, name: l.name, archived: l.archived, createdAt: l.createdAt.toISOString() })) };
    }
    case 'field list': {
      await requireOrganization(prisma, command.org, command.command);
      const rows = await prisma.customField.findMany({
        where: { organizationId: command.org },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
      return {
        fields: rows.map((f) => ({
          id: f.id,
          key: f.key,
          type: f.type,
          required: f.required,
          defaultValue: f.defaultValue ?? null,
          options: f.type === 'select' ? f.options : null,
          createdAt: f.createdAt.toISOString(),
        })),
      };
    }
    case 'org create': {
      const org = await prisma.organization.create({ data: { name: command.name } });
      return { id: org.id };
    }
    case 'key create': {
      await requireOrganization(prisma, command.org, command.command);
      // Only the hash and a short prefix reach the database; the key is printed once.
      const { key, prefix, keyHash } = generateApiKey();
      const row = await prisma.apiKey.create({
        data: { organizationId: command.org, prefix, keyHash, expiresAt: command.expiresAt, scope: toPrismaScope(command.scope) },
      });
      return { id: row.id, key };
    }
    case 'key revoke': {
      const row = await prisma.apiKey.findUnique({ where: { id: command.id } });
      if (!row) throw new AdminArgumentError(`key revoke: no API key with id "${command.id}"`);
      // Revoking twice keeps the first revocation time.
      const revoked = row.revokedAt
        ? row
        : await prisma.apiKey.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
      return { id: revoked.id, revokedAt: revoked.revokedAt?.toISOString() };
    }
    case 'list create': {
      await requireOrganization(prisma, command.org, command.command);
      const { createList, events } = api(prisma);
      const list = await createList(prisma.database, events, command.org, command.name, null);
      return { id: list.id };
    }
    case 'list archive': {
      const { archiveList } = api(prisma);
      const found = await archiveList(command.id);
      if (!found) throw new AdminArgumentError(`list archive: no list with id "${command.id}"`);
      return { id: command.id, archived: true };
    }
    case 'field create': {
      await requireOrganization(prisma, command.org, command.command);
      const { org, key, type, required, defaultValue, options } = command;
      const { createCustomField, events } = api(prisma);
      // The API's create (custom-fields.repository.ts): the same row and the same field.created event.
      const created = await createCustomField(prisma.database, events, org, { key, type, required, defaultValue: defaultValue ?? null, options }, null);
      // The unique index (organization, key) decides, so two concurrent creates cannot both win.
      if (created === 'taken') throw new AdminArgumentError(`field create: the organization already has a field "${command.key}"`);
      return { id: created.id };
    }
    case 'suppress': {
      await requireOrganization(prisma, command.org, command.command);
      const { SuppressionsService, events } = api(prisma);
      const row = await new SuppressionsService(prisma.database, new ErasureSecrets(prisma), events).replace(command.org, command.email, command.reason, null);
      return { email: row.email, reason: row.reason };
    }
    case 'unsuppress': {
      await requireOrganization(prisma, command.org, command.command);
      const { SuppressionsService, events } = api(prisma);
      try {
        // The API's rules (SuppressionsService), with the operator's right to lift a complaint.
        const lifted = await new SuppressionsService(prisma.database, new ErasureSecrets(prisma), events).lift(command.org, command.email, {
          allowComplained: true,
          requestId: null,
        });
        return { email: lifted.email, status: 'unsuppressed', reason: lifted.reason };
      } catch (error) {
        if (error instanceof RequestError && error.code === RequestErrorCode.SUPPRESSION_NOT_FOUND) {
          throw new AdminArgumentError(`unsuppress: ${JSON.stringify(command.email)} is not suppressed in this organization`);
        }
        throw error;
      }
    }
    case 'contact erase': {
      await requireOrganization(prisma, command.org, command.command);
      // The API's erasure (ErasureService): one place for what leaves the database.
      const { ErasureService, events } = api(prisma);
      const outcome = await new ErasureService(prisma.database, new ErasureSecrets(prisma), events).erase(command.org, command.email, null);
      return { email: command.email, status: 'erased', ...outcome };
    }
  }
}

/**
 * The API's repositories and services, for the commands that write through them with their change
 * events. They are NestJS providers: loaded here on first use, so that the read and key commands
 * answer without loading NestJS. The clients are the CLI's own (admin-command-line.ts).
 */
function api(prisma: PrismaService) {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { EventsRepository } = require('../events/events.repository') as typeof import('../events/events.repository');
  const { createCustomField } = require('../custom-fields/custom-fields.repository') as typeof import('../custom-fields/custom-fields.repository');
  const { createList, ListsRepository } = require('../lists/lists.repository') as typeof import('../lists/lists.repository');
  const { ErasureService } = require('../erasure/erasure.service') as typeof import('../erasure/erasure.service');
  const { SuppressionsService } = require('../suppressions/suppressions.service') as typeof import('../suppressions/suppressions.service');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const events = new EventsRepository(prisma.database);
  const lists = new ListsRepository(prisma, prisma.database, events);
  return { events, createCustomField, createList, archiveList: (id: string) => lists.archive(id), ErasureService, SuppressionsService };
}

async function requireOrganization(prisma: PrismaService, id: string, command: string): Promise<void> {
  const org = await prisma.organization.findUnique({ where: { id }, select: { id: true } });
  if (!org) throw new AdminArgumentError(`${command}: no organization with id "${id}"`);
}
