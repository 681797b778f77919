import { defineStatement } from '../database/statements';

export interface ErasedRow {
  contact_deleted: boolean;
  /** The erased contact's id (none or one): its events are redacted and contact.erased names it. */
  contact_ids: string[];
  suppression_kept: boolean;
  stored_answers_erased: number;
}

/**
 * Everything an erase removes or keeps, in ONE statement: the same work as Prisma calls would take
 * eight round trips, most of the request's time on a large organization. Runs after LOCK_EMAILS, in its own statement, so its snapshot sees every write the
 * lock waited for.
 * - the contact (its memberships by the foreign key's cascade), by the unique (organization, email) index,
 *   returning its id for the events (erasure.service.ts);
 * - the plain suppression, kept as its keyed hash (reason and time kept; it replaces an erased one
 *   of the same hash: the plain one is the newer word on the address);
 * - every stored answer holding the address: through the GIN index on `emails` when the address
 *   fits it ($4 true), else found in the bodies as the JSON string they hold ($5), an address too
 *   long for the index (the other branch is skipped by its one-time filter).
 * $1 organization id, $2 normalized email, $3 its HMAC, $4 whether $2 is indexed, $5 $2 as a JSON string.
 */
export const ERASE_ADDRESS = defineStatement<ErasedRow>({
  name: 'erasure.erase-address',
  text: `WITH contact AS (
        DELETE FROM contacts WHERE organization_id = $1 AND email = $2 RETURNING id
      ), plain AS (
        DELETE FROM suppressions WHERE organization_id = $1 AND email = $2 RETURNING reason, created_at
      ), hashed AS (
        INSERT INTO erased_suppressions (organization_id, email_hash, reason, created_at)
        SELECT $1, $3, reason, created_at FROM plain
        ON CONFLICT (organization_id, email_hash) DO UPDATE SET reason = EXCLUDED.reason, created_at = EXCLUDED.created_at
        RETURNING 1
      ), indexed_answers AS (
        DELETE FROM stored_responses WHERE $4::boolean AND organization_id = $1 AND emails @> ARRAY[$2::text] RETURNING 1
      ), long_answers AS (
        DELETE FROM stored_responses WHERE NOT $4::boolean AND organization_id = $1 AND strpos(body::text, $5::text) > 0 RETURNING 1
      )
      SELECT EXISTS (SELECT 1 FROM contact) AS contact_deleted,
             ARRAY(SELECT id FROM contact) AS contact_ids,
             EXISTS (SELECT 1 FROM hashed)
               OR EXISTS (SELECT 1 FROM erased_suppressions WHERE organization_id = $1 AND email_hash = $3) AS suppression_kept,
             (SELECT count(*)::int FROM indexed_answers) + (SELECT count(*)::int FROM long_answers) AS stored_answers_erased`,
  columns: ['contact_deleted', 'contact_ids', 'suppression_kept', 'stored_answers_erased'],
  sample: (organizationId) => [organizationId, '', '', true, '""'],
});

export const ERASURE_STATEMENTS = [ERASE_ADDRESS];
