import { PrismaPg } from '@prisma/adapter-pg';
import type { Pool } from 'pg';
import { executeAdminCommand } from '../../src/admin/admin.commands';
import { parseAdminCommand, type AdminCommand } from '../../src/admin/admin-arguments';
import { ApiKeyRepository } from '../../src/auth/api-key.repository';
import { CustomFieldsRepository } from '../../src/custom-fields/custom-fields.repository';
import { Database } from '../../src/database/database';
import type { PrismaService } from '../../src/database/prisma.service';
import { EventsRepository } from '../../src/events/events.repository';
import { PrismaClient } from '../../src/generated/prisma/client';
import { ListMembershipsRepository } from '../../src/list-memberships/list-memberships.repository';
import { ListsRepository } from '../../src/lists/lists.repository';
import { ErasureSecrets } from '../../src/suppressions/erasure-secrets';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { useTestApp } from '../utils/test-app';

/**
 * Prisma Client opens no transaction of its own for any call src/ makes (docs/database-faults.md,
 * "Prisma Client"): a plan that needs several statements (a nested write, an upsert it cannot send
 * as one INSERT ... ON CONFLICT, ...) runs them in an implicit transaction through the adapter's
 * startTransaction, where @prisma/client 6.19.3 leaks the pool connection of a backend that dies.
 * The app's PrismaService is plain `new PrismaPg(pool)`, so none may be opened. Each src/ function
 * that calls Prisma Client runs here on a client whose adapter counts them.
 */
describe('Prisma Client calls of src/ run in autocommit', () => {
  const app = useTestApp();

  /** PrismaPg over the app's pool, counting the transactions Prisma Client starts through it. */
  function countingClient(pool: Pool): { prisma: PrismaService; started: () => number } {
    let started = 0;
    const inner = new PrismaPg(pool);
    const factory = {
      provider: inner.provider as 'postgres',
      adapterName: inner.adapterName,
      connect: async () => {
        const adapter = await inner.connect();
        return new Proxy(adapter, {
          get(target, property) {
            if (property === 'startTransaction') {
              return (...args: Parameters<typeof adapter.startTransaction>) => {
                started++;
                return target.startTransaction(...args);
              };
            }
            const value = Reflect.get(target, property) as unknown;
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        });
      },
    };
    const client = new PrismaClient({ adapter: factory, errorFormat: 'minimal' });
    return { prisma: Object.assign(client, { database: app.t.app.get(Database) }) as unknown as PrismaService, started: () => started };
  }

  it('counts the transactions Prisma Client opens (a nested write opens one, and so does updateMany)', async () => {
    const { prisma, started } = countingClient(app.t.app.get(Database).pool);
    try {
      const org = await prisma.organization.create({ data: { name: 'Nested', lists: { create: [{ name: 'Inside' }] } } });
      expect(started()).toBe(1);
      await prisma.list.updateMany({ where: { organizationId: org.id }, data: { archived: true } });
      expect(started()).toBe(2);
    } finally {
      await prisma.$disconnect();
    }
  });

  it('opens none for the admin commands, the repositories and the key lookup', async () => {
    const database = app.t.app.get(Database);
    const { prisma, started } = countingClient(database.pool);
    try {
      const admin = (argv: string[]) => executeAdminCommand(prisma, parseAdminCommand(argv) as Exclude<AdminCommand, { command: 'migrate' }>);
      const org = (await admin(['org', 'create', '--name', 'Autocommit'])) as { id: string };
      const key = (await admin(['key', 'create', '--org', org.id])) as { id: string; key: string };
      const list = (await admin(['list', 'create', '--org', org.id, '--name', 'L'])) as { id: string };
      await admin(['field', 'create', '--org', org.id, '--key', 'plan', '--type', 'text']);
      for (const argv of [['org', 'list'], ['key', 'list', '--org', org.id], ['list', 'list', '--org', org.id], ['field', 'list', '--org', org.id]]) await admin(argv);
      await admin(['list', 'archive', '--id', list.id]);
      await admin(['suppress', '--org', org.id, '--email', 'a@example.com', '--reason', 'bounced']);
      await admin(['unsuppress', '--org', org.id, '--email', 'a@example.com']);
      await admin(['contact', 'erase', '--org', org.id, '--email', 'a@example.com']);
      await admin(['key', 'revoke', '--id', key.id]);
      await admin(['key', 'revoke', '--id', key.id]);

      const events = new EventsRepository(database);
      await new ListsRepository(prisma, database, events).findAll(org.id);
      await new ListMembershipsRepository(prisma, database, events).listExists(org.id, list.id);
      await new CustomFieldsRepository(prisma, database, events).findAll(org.id);
      (await new ErasureSecrets(prisma).hasherFor(org.id))('a@example.com');
      const fresh = (await admin(['key', 'create', '--org', org.id])) as { key: string };
      await new ApiKeyRepository(database, prisma).findActive(fresh.key, new Date());

      const webhooks = new WebhooksRepository(prisma, database);
      const hook = await webhooks.transaction((tx) =>
        webhooks.create(tx, org.id, { url: 'https://example.com/hook', types: [], description: null, secret: 's', feed: { position: 0n, seq: 0n } }),
      );
      await webhooks.findAll(org.id);
      await webhooks.find(org.id, hook.id);
      await webhooks.update(org.id, hook.id, { enabled: true, types: ['contact.created'] });
      await webhooks.update(org.id, '00000000-0000-0000-0000-000000000000', { enabled: false });
      await webhooks.setSecret(org.id, hook.id, 't');
      await webhooks.setSecret(org.id, '00000000-0000-0000-0000-000000000000', 't');
      await webhooks.delete(org.id, hook.id);
      // The key's lastUsedAt is written off the request path: wait for it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(started()).toBe(0);
    } finally {
      await prisma.$disconnect();
    }
  });
});
