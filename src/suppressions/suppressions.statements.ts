import { defineStatement } from '../database/statements';
import type { SuppressionReason } from '../generated/prisma/enums';

/**
 * The suppressions of the normalized emails $2 of organization $1, plain ones and erased ones
 * (kept under the HMAC $3[i] of $2[i]).
 */
export const SUPPRESSIONS_OF_EMAILS = defineStatement<{ email: string; reason: SuppressionReason; erased: boolean }>({
  name: 'suppressions.of-emails',
  text: `SELECT p.email, p.reason::text AS reason, false AS erased FROM suppressions p
      WHERE p.organization_id = $1 AND p.email = ANY($2::text[])
      UNION ALL
      SELECT h.email, e.reason::text, true FROM unnest($2::text[], $3::text[]) AS h(email, hash)
      JOIN erased_suppressions e ON e.organization_id = $1 AND e.email_hash = h.hash`,
  columns: ['email', 'reason', 'erased'],
  sample: (organizationId) => [organizationId, [], []],
});

/** Plain suppressions of organization $1 ($2 emails, $3 reasons); an email already suppressed is left as it is. */
export const INSERT_SUPPRESSIONS = defineStatement<{ inserted: number }>({
  name: 'suppressions.insert',
  text: `WITH inserted AS (
        INSERT INTO suppressions (organization_id, email, reason)
        SELECT $1, r.email, r.reason::suppression_reason FROM unnest($2::text[], $3::text[]) AS r(email, reason)
        ON CONFLICT DO NOTHING
        RETURNING 1
      )
      SELECT count(*)::int AS inserted FROM inserted`,
  columns: ['inserted'],
  sample: (organizationId) => [organizationId, [], []],
});

/**
 * The plain suppression of $2 with reason $3 (admin `suppress`): the address is named again, so an
 * erased one under its hash $4 goes; an existing plain one takes the new reason (its time kept).
 * `before`: the plain suppression's reason before, null when there was none.
 */
export const REPLACE_SUPPRESSION = defineStatement<{ email: string; reason: SuppressionReason; before: SuppressionReason | null }>({
  name: 'suppressions.replace',
  text: `WITH before AS (
        SELECT reason FROM suppressions WHERE organization_id = $1 AND email = $2
      ), erased AS (
        DELETE FROM erased_suppressions WHERE organization_id = $1 AND email_hash = $4
      )
      INSERT INTO suppressions (organization_id, email, reason) VALUES ($1, $2, $3::suppression_reason)
      ON CONFLICT (organization_id, email) DO UPDATE SET reason = EXCLUDED.reason
      RETURNING email, reason::text AS reason, (SELECT reason::text FROM before) AS before`,
  columns: ['email', 'reason', 'before'],
  sample: (organizationId) => [organizationId, 'sample', 'bounced', ''],
});

/** Removes the suppression of $2 in organization $1, plain and erased (hash $3) alike; how many were removed. */
export const REMOVE_SUPPRESSION = defineStatement<{ removed: number }>({
  name: 'suppressions.remove',
  text: `WITH plain AS (
        DELETE FROM suppressions WHERE organization_id = $1 AND email = $2 RETURNING 1
      ), erased AS (
        DELETE FROM erased_suppressions WHERE organization_id = $1 AND email_hash = $3 RETURNING 1
      )
      SELECT (SELECT count(*)::int FROM plain) + (SELECT count(*)::int FROM erased) AS removed`,
  columns: ['removed'],
  sample: (organizationId) => [organizationId, '', ''],
});

/** The contacts of organization $1 with the normalized emails $2: what a suppression event names. */
export const CONTACT_IDS_OF_EMAILS = defineStatement<{ id: string; email: string }>({
  name: 'suppressions.contact-ids',
  text: `SELECT id, email FROM contacts WHERE organization_id = $1 AND email = ANY($2::text[])`,
  columns: ['id', 'email'],
  sample: (organizationId) => [organizationId, []],
});

/**
 * Up to $4 plain suppressions of organization $1 by email in byte order (COLLATE "C", the index's),
 * after $2 when not null, of reason $3 when not null: keyset, never OFFSET.
 */
export const SUPPRESSIONS_PAGE = defineStatement<{ email: string; reason: SuppressionReason; createdAt: Date }>({
  name: 'suppressions.page',
  text: `SELECT email, reason::text AS reason, created_at AS "createdAt"
      FROM suppressions
      WHERE organization_id = $1
        AND ($2::text IS NULL OR email COLLATE "C" > $2::text COLLATE "C")
        AND ($3::text IS NULL OR reason::text = $3::text)
      ORDER BY email COLLATE "C"
      LIMIT $4::int`,
  columns: ['email', 'reason', 'createdAt'],
  sample: (organizationId) => [organizationId, null, null, 1],
});

export const SUPPRESSIONS_STATEMENTS = [
  SUPPRESSIONS_OF_EMAILS,
  INSERT_SUPPRESSIONS,
  REPLACE_SUPPRESSION,
  REMOVE_SUPPRESSION,
  CONTACT_IDS_OF_EMAILS,
  SUPPRESSIONS_PAGE,
];
