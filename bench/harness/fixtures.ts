import { parseAdminCommand } from '../../src/admin/admin-arguments';
import { closeAdminClient, executeAdminCommand, openAdminClient } from '../../src/admin/admin.commands';
import { withClient } from './database';
import type { Service } from './service';

/** Rows in one batch request (the batch endpoint's size every batch scenario sends). */
export const BATCH = 50;

/** An organization made for the bench: its keys, two lists, two custom fields (`plan`, `seats`). */
export interface Fixtures {
  organizationId: string;
  key: string;
  /** A key with the `admin` scope (erase and webhooks need it); `key` has the default scope, as a caller's would. */
  adminKey: string;
  listIds: [string, string];
}

let sequence = 0;
/** An address no other request of this run used. */
export const freshEmail = (tag: string): string => `${tag}-${process.pid}-${++sequence}@bench.example.com`;
/** A value no other call of this run returned (cities of changing rows). */
export const nextSequence = (): number => ++sequence;

/** The row every scenario writes: 2 lists, 4 fields (2 standard, 2 custom). */
export function contactRow(email: string, fx: Fixtures, city = 'Oslo', overwrite = false): Record<string, unknown> {
  return { email, listIds: fx.listIds, fields: { firstName: 'Ada', city, plan: 'pro', seats: 3 }, overwrite };
}

/**
 * An organization with a key, an admin key, 2 lists and 2 custom fields, made with the admin code
 * (src/admin), as an operator would. `kept`: an organization of a kept database that has no admin key yet.
 */
export async function makeFixtures(url: string, name = 'Bench', kept?: Omit<Fixtures, 'adminKey'>): Promise<Fixtures> {
  const prisma = openAdminClient(url);
  const admin = async (argv: string[]) => {
    const command = parseAdminCommand(argv);
    if (command.command === 'migrate') throw new Error('bench fixtures never migrate');
    return executeAdminCommand(prisma, command);
  };
  try {
    if (kept) {
      const adminKey = (await admin(['key', 'create', '--org', kept.organizationId, '--scope', 'admin'])) as { key: string };
      return { ...kept, adminKey: adminKey.key };
    }
    const org = (await admin(['org', 'create', '--name', name])) as { id: string };
    const key = (await admin(['key', 'create', '--org', org.id])) as { key: string };
    const adminKey = (await admin(['key', 'create', '--org', org.id, '--scope', 'admin'])) as { key: string };
    const a = (await admin(['list', 'create', '--org', org.id, '--name', 'Newsletter'])) as { id: string };
    const b = (await admin(['list', 'create', '--org', org.id, '--name', 'Customers'])) as { id: string };
    await admin(['field', 'create', '--org', org.id, '--key', 'plan', '--type', 'select', '--options', 'free,pro']);
    await admin(['field', 'create', '--org', org.id, '--key', 'seats', '--type', 'number']);
    return { organizationId: org.id, key: key.key, adminKey: adminKey.key, listIds: [a.id, b.id] };
  } finally {
    await closeAdminClient(prisma);
  }
}

/** POST of a batch of rows through the service (set-up, not measured); fails unless 200. */
export async function postBatch(service: Service, fx: Fixtures, rows: Record<string, unknown>[]): Promise<void> {
  const res = await fetch(`${service.baseUrl}/api/v2/contacts/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fx.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ contacts: rows }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`a set-up batch answered ${res.status}`);
}

/** The addresses of batchOverwrite and singleUnchanged: half change each time, half are sent as stored. */
export interface OverwriteEmails {
  changing: string[];
  stable: string[];
}

/** Contacts for batchOverwrite and singleUnchanged, written through the service (not measured). */
export async function seedOverwriteContacts(service: Service, fx: Fixtures): Promise<OverwriteEmails> {
  const changing = Array.from({ length: 20 * (BATCH / 2) }, () => freshEmail('ow-c'));
  const stable = Array.from({ length: 20 * (BATCH / 2) }, () => freshEmail('ow-s'));
  const all = [...changing, ...stable];
  for (let i = 0; i < all.length; i += BATCH) {
    await postBatch(
      service,
      fx,
      all.slice(i, i + BATCH).map((email) => contactRow(email, fx)),
    );
  }
  return { changing, stable };
}

/**
 * `count` contacts with a membership each, set-based (INSERT ... SELECT generate_series), then
 * ANALYZE. Their updatedAt is spread evenly over the last 100 days (the listing's updatedSince filters).
 */
export async function loadExisting(url: string, fx: Fixtures, count: number): Promise<void> {
  await withClient(url, async (client) => {
    await client.query(
      `INSERT INTO contacts (id, organization_id, email, first_name, city, custom_fields, created_at, updated_at)
       SELECT gen_random_uuid()::text, $1, 'existing-' || g || '@bench.example.com', 'Ada', 'Oslo', '{"plan":"pro"}'::jsonb,
              now() - ((g::bigint * 7919) % 8640000) * interval '1 second', now() - ((g::bigint * 7919) % 8640000) * interval '1 second'
       FROM generate_series(1, $2::int) AS g`,
      [fx.organizationId, count],
    );
    await client.query(
      `INSERT INTO list_memberships (contact_id, list_id, email)
       SELECT id, $2, email FROM contacts WHERE organization_id = $1 AND email LIKE 'existing-%'`,
      [fx.organizationId, fx.listIds[0]],
    );
    await client.query('ANALYZE');
  });
}
