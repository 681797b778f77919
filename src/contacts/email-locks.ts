import { runIn, type SqlClient } from '../database/statements';
import { LOCK_EMAILS } from './contacts.statements';

/**
 * Takes the POST pipeline's per-email locks (LOCK_EMAILS: transaction-scoped advisory locks on
 * (organization, email), ascending key order, one statement) inside the caller's
 * `Database.transaction`: every path that changes or removes something by email serializes with
 * the creates and updates of the same emails. `emails` are normalized.
 */
export async function lockEmails(tx: SqlClient, organizationId: string, emails: readonly string[]): Promise<void> {
  if (emails.length === 0) return;
  await runIn(tx, LOCK_EMAILS, [organizationId, [...emails]]);
}
