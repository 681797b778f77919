import { generateApiKey } from '../auth/api-key';
import { insertCustomField } from '../custom-fields/custom-fields.repository';
import type { Database } from '../database/database';
import { runIn } from '../database/statements';
import { EventsRepository } from '../events/events.repository';
import { insertList } from '../lists/lists.repository';
import { DEMO_SEED_LOCK, FIRST_ORGANIZATION, INSERT_ADMIN_KEY, INSERT_ORGANIZATION } from './demo-seed.statements';

/**
 * Demo data for the embedded database (docs/api.md#running-and-administration): on first start, one organization
 * with two lists, a few custom fields and an API key, so `npm start` can be tried with curl at
 * once. Never used with DATABASE_URL (a real deployment gets no demo data).
 */

export const DEMO_ORGANIZATION_NAME = 'Demo organization';

export const DEMO_LISTS = ['Newsletter', 'Customers'] as const;

export const DEMO_FIELDS = [
  { key: 'source', type: 'text', required: false, defaultValue: null, options: [] },
  { key: 'score', type: 'number', required: false, defaultValue: null, options: [] },
  { key: 'plan', type: 'select', required: false, defaultValue: 'free', options: ['free', 'pro', 'enterprise'] },
  // Required with a default, so a contact without it still gets created.
  { key: 'marketingConsent', type: 'boolean', required: true, defaultValue: false, options: [] },
] as const;

export type DemoSeedResult =
  | { seeded: true; organizationId: string; apiKey: string; listIds: string[] }
  | { seeded: false; organizationId: string | null };

/**
 * Seeds the demo data if the database has no organization yet, with the change events of its lists
 * and fields (list.created, field.created, requestId null) in the same transaction, like every change.
 */
export async function seedDemoData(database: Database): Promise<DemoSeedResult> {
  const events = new EventsRepository(database);
  return database.transaction(async (tx) => {
    await runIn(tx, DEMO_SEED_LOCK, []);
    const [existing] = await runIn(tx, FIRST_ORGANIZATION, []);
    if (existing) return { seeded: false, organizationId: existing.id };

    const [org] = await runIn(tx, INSERT_ORGANIZATION, [DEMO_ORGANIZATION_NAME]);
    const listIds: string[] = [];
    for (const name of DEMO_LISTS) listIds.push((await insertList(tx, events, org.id, name, null)).id);
    for (const field of DEMO_FIELDS) await insertCustomField(tx, events, org.id, { ...field, options: [...field.options] }, null);
    // Only the hash is stored; the key itself is printed once, at this start. The demo key is
    // `admin` (docs/api.md, "Key scopes"), so a first try can also manage lists and fields.
    const { key, prefix, keyHash } = generateApiKey();
    await runIn(tx, INSERT_ADMIN_KEY, [org.id, prefix, keyHash]);
    return { seeded: true, organizationId: org.id, apiKey: key, listIds };
  });
}

/** What `npm start` prints after listening: the demo key and curl lines, or how to get a key. */
export function demoBanner(result: DemoSeedResult, baseUrl: string): string {
  if (!result.seeded) {
    const org = result.organizationId ?? '<orgId>';
    return [
      '',
      'Embedded database ready (demo data was created on first start; its API key is not shown again).',
      'Create a new API key with:',
      `  npm run --silent admin -- key create --org ${org} [--scope contacts:read|contacts:write|admin]`,
      '',
    ].join('\n');
  }
  const contact = JSON.stringify({
    email: 'ada@example.com',
    listIds: [result.listIds[0]],
    fields: { firstName: 'Ada', lastName: 'Lovelace', plan: 'pro', score: 42 },
  });
  return [
    '',
    'Demo data created (embedded database):',
    `  organization ${result.organizationId}`,
    `  lists        ${DEMO_LISTS.map((name, i) => `${name} ${result.listIds[i]}`).join(', ')}`,
    `  fields       ${DEMO_FIELDS.map((f) => `${f.key} (${f.type}${f.required ? ', required' : ''})`).join(', ')}`,
    '',
    `API key (shown only now): ${result.apiKey}`,
    '  scope admin: it can also create lists and fields (docs/api.md, "Key scopes")',
    '',
    'Try it:',
    `  curl -s ${baseUrl}/api/v2/lists -H 'Authorization: Bearer ${result.apiKey}'`,
    `  curl -s -X POST ${baseUrl}/api/v2/contacts -H 'Authorization: Bearer ${result.apiKey}' -H 'Content-Type: application/json' -d '${contact}'`,
    '',
  ].join('\n');
}

/** The address to print for a server listening on HOST:PORT (a wildcard host is reached on localhost). */
export function localBaseUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
