import { randomUUID } from 'node:crypto';
import { BATCH, freshEmail } from '../harness/fixtures';
import { runRaw, type RawWork } from '../harness/raw';
import type { Scenario } from '../harness/scenario';

/**
 * The minimal raw baseline of batchCreate: the same 50 rows sent with `pg` directly, one
 * transaction each: a set-based `INSERT ... ON CONFLICT DO UPDATE` of the contacts, then their 100
 * memberships. No events, no stored answer, no locks or reads: `ratioToRaw` (batchCreate ÷ this)
 * holds what those features cost as well as the service's own overhead; `ratioToRawSameWork`
 * (rawBatchSameWork) separates the two.
 */
const work: RawWork = async (client, fx) => {
  const ids = Array.from({ length: BATCH }, () => randomUUID());
  const emails = ids.map(() => freshEmail('rb'));
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO contacts (id, organization_id, email, first_name, city, custom_fields, created_at, updated_at)
     SELECT r.id, $1, r.email, 'Ada', 'Oslo', '{"plan":"pro","seats":3}'::jsonb, now(), now()
     FROM unnest($2::text[], $3::text[]) AS r(id, email)
     ON CONFLICT (organization_id, email) DO UPDATE SET first_name = EXCLUDED.first_name, updated_at = now()`,
    [fx.organizationId, ids, emails],
  );
  await client.query(
    `INSERT INTO list_memberships (contact_id, list_id, email)
     SELECT c.id, l, c.email FROM unnest($1::text[], $3::text[]) AS c(id, email) CROSS JOIN unnest($2::text[]) AS l ON CONFLICT DO NOTHING`,
    [ids, fx.listIds, emails],
  );
  await client.query('COMMIT');
  return BATCH;
};

export const rawBatch: Scenario = {
  name: 'rawBatch',
  phases: ['empty'],
  run: async (ctx) => ({
    listed: [await runRaw(ctx.url, ctx.stats, ctx.fx, 'rawBatch', ctx.settings.batchConnections, ctx.settings.seconds, ctx.settings.warmupSeconds, work)],
  }),
};
