import { createHash, randomUUID } from 'node:crypto';
import { BATCH, freshEmail } from '../harness/fixtures';
import { runRaw, type RawWork } from '../harness/raw';
import type { Scenario } from '../harness/scenario';

/**
 * The raw baseline that does batchCreate's database work, sent with `pg` directly, one transaction
 * per 50 new contacts, over BENCH_BATCH_CONNECTIONS connections:
 * 1. the advisory locks of the 50 addresses, in key order, in one statement;
 * 2. one read of what the rules need: the requested lists, the custom field definitions, the
 *    contacts (a probe of the (organization, email) key per address, so the plan does not depend on
 *    table statistics) and the suppressions (plain, and erased ones by a hash of the address) of
 *    these addresses;
 * 3. one statement writing the 50 contacts, their 100 memberships, 50 `contact.created` events (the
 *    first row queueing the commit-position trigger, as the service's statement does) with their
 *    JSON text, and the request's stored answer with its addresses (GIN-indexed);
 * 4. COMMIT, which runs the commit-position trigger.
 * `ratioToRawSameWork` (batchCreate ÷ this) is then what the service itself costs over PostgreSQL
 * doing the same work: HTTP, validation, rendering, and its round trips.
 */
const work: RawWork = async (client, fx) => {
  const ids = Array.from({ length: BATCH }, () => randomUUID());
  const emails = ids.map(() => freshEmail('rw'));
  const hashes = emails.map((email) => createHash('sha256').update(email).digest('hex'));
  const requestId = randomUUID();
  await client.query('BEGIN');
  await client.query(
    `SELECT count(*)::int AS locked FROM (
       SELECT pg_advisory_xact_lock(k) FROM (
         SELECT DISTINCT hashtextextended($1 || ':' || e, 0) AS k FROM unnest($2::text[]) AS e ORDER BY k
       ) AS keys
     ) AS locks`,
    [fx.organizationId, emails],
  );
  const { rows } = await client.query<{ now: Date }>(
    `SELECT now()::timestamptz(3) AS now,
       ARRAY(SELECT l.id FROM lists l WHERE l.organization_id = $1 AND NOT l.archived AND l.id = ANY($3::text[])) AS lists,
       (SELECT json_agg(json_build_object('key', f.key, 'type', f.type, 'options', f.options)) FROM custom_fields f WHERE f.organization_id = $1) AS fields,
       (SELECT json_agg(c) FROM unnest($2::text[]) AS wanted(email)
          CROSS JOIN LATERAL (SELECT * FROM contacts WHERE organization_id = $1 AND email = wanted.email LIMIT 1) AS c) AS contacts,
       (SELECT json_agg(s) FROM (
          SELECT p.email, p.reason::text FROM suppressions p WHERE p.organization_id = $1 AND p.email = ANY($2::text[])
          UNION ALL
          SELECT h.email, e.reason::text FROM unnest($2::text[], $4::text[]) AS h(email, hash)
          JOIN erased_suppressions e ON e.organization_id = $1 AND e.email_hash = h.hash
        ) AS s) AS suppressions`,
    [fx.organizationId, emails, fx.listIds, hashes],
  );
  const at = rows[0].now.toISOString();
  const eventIds = ids.map(() => randomUUID());
  const bodies = ids.map((id, i) =>
    JSON.stringify({
      id: `evt_${eventIds[i].replace(/-/g, '')}`,
      type: 'contact.created',
      occurredAt: at,
      requestId,
      data: {
        contact: {
          id,
          email: emails[i],
          fields: { firstName: 'Ada', city: 'Oslo', plan: 'pro', seats: 3 },
          listIds: fx.listIds,
          createdAt: at,
          updatedAt: at,
        },
      },
    }),
  );
  const answer = JSON.stringify({ request_id: requestId, results: ids.map((id, index) => ({ index, id, email: emails[index], status: 'created' })) });
  await client.query(
    `WITH inserted AS (
       INSERT INTO contacts (id, organization_id, email, first_name, city, custom_fields, created_at, updated_at)
       SELECT r.id, $1, r.email, 'Ada', 'Oslo', '{"plan":"pro","seats":3}'::jsonb, $5::timestamptz, $5::timestamptz
       FROM unnest($2::text[], $3::text[]) AS r(id, email)
       RETURNING id
     ), memberships AS (
       INSERT INTO list_memberships (contact_id, list_id, email)
       SELECT c.id, l, c.email FROM unnest($2::text[], $3::text[]) AS c(id, email) CROSS JOIN unnest($4::text[]) AS l
     ), written_events AS (
       INSERT INTO events (organization_id, id, type, request_id, contact_id, email, occurred_at, body, takes_position)
       SELECT $1, r.event_id, 'contact.created', $7, r.id, r.email, $5::timestamptz, r.body, r.n = 1
       FROM unnest($6::uuid[], $2::text[], $3::text[], $8::text[]) WITH ORDINALITY AS r(event_id, id, email, body, n)
     ), stored AS (
       INSERT INTO stored_responses (request_id, organization_id, status, body, emails)
       VALUES ($7, $1, 200, $9::json, $3::text[])
     )
     SELECT (SELECT count(*)::int FROM inserted) AS inserted`,
    [fx.organizationId, ids, emails, fx.listIds, at, eventIds, requestId, bodies, answer],
  );
  await client.query('COMMIT');
  return BATCH;
};

export const rawBatchSameWork: Scenario = {
  name: 'rawBatchSameWork',
  phases: ['empty'],
  run: async (ctx) => ({
    listed: [
      await runRaw(ctx.url, ctx.stats, ctx.fx, 'rawBatchSameWork', ctx.settings.batchConnections, ctx.settings.seconds, ctx.settings.warmupSeconds, work),
    ],
  }),
};
