import { randomUUID } from 'node:crypto';
import { freshEmail } from '../harness/fixtures';
import { runRaw, type RawWork } from '../harness/raw';
import type { Scenario } from '../harness/scenario';

/**
 * The raw baseline of singleCreate (`singleRatioToRaw`): the single endpoint's transaction sent with
 * `pg` directly: BEGIN, advisory lock, contact, memberships, stored answer, COMMIT.
 */
const work: RawWork = async (client, fx) => {
  const id = randomUUID();
  const email = freshEmail('rs');
  await client.query('BEGIN');
  await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0))`, [fx.organizationId, email]);
  await client.query(
    `INSERT INTO contacts (id, organization_id, email, first_name, city, custom_fields, created_at, updated_at)
     VALUES ($1, $2, $3, 'Ada', 'Oslo', '{"plan":"pro","seats":3}'::jsonb, now(), now())`,
    [id, fx.organizationId, email],
  );
  await client.query(`INSERT INTO list_memberships (contact_id, list_id, email) SELECT $1, l, $3 FROM unnest($2::text[]) AS l`, [id, fx.listIds, email]);
  await client.query(`INSERT INTO stored_responses (request_id, organization_id, status, body) VALUES ($1, $2, 201, $3::json)`, [
    randomUUID(),
    fx.organizationId,
    JSON.stringify({ status: 'created', email, id }),
  ]);
  await client.query('COMMIT');
  return 1;
};

export const rawSingle: Scenario = {
  name: 'rawSingle',
  phases: ['empty'],
  run: async (ctx) => ({
    listed: [await runRaw(ctx.url, ctx.stats, ctx.fx, 'rawSingle', ctx.settings.singleConnections, ctx.settings.seconds, ctx.settings.warmupSeconds, work)],
  }),
};
