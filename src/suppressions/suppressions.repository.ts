import type { Database } from '../database/database';
import { runIn, type SqlClient } from '../database/statements';
import type { SuppressionReason } from '../generated/prisma/enums';
import {
  CONTACT_IDS_OF_EMAILS,
  INSERT_SUPPRESSIONS,
  REMOVE_SUPPRESSION,
  REPLACE_SUPPRESSION,
  SUPPRESSIONS_OF_EMAILS,
  SUPPRESSIONS_PAGE,
} from './suppressions.statements';

/** A suppression as the API lists it (plain ones only: erased ones have no address). */
export interface SuppressionRow {
  email: string;
  reason: SuppressionReason;
  createdAt: Date;
}

/** A suppression found for an address: a plain one (with the address) or an erased one (its hash). */
export interface FoundSuppression {
  reason: SuppressionReason;
  erased: boolean;
}

/**
 * Suppressions (suppressions.statements.ts): plain ones in `suppressions`, erased ones in
 * `erased_suppressions` under the HMAC of the address. Every change takes the transaction it runs
 * in (`Database.transaction`), so the caller holds the email locks around it.
 */
export class SuppressionsRepository {
  /** The suppression of each given email, plain first; `hashes[i]` is the hash of `emails[i]`. */
  async findFor(tx: SqlClient, organizationId: string, emails: string[], hashes: string[]): Promise<Map<string, FoundSuppression>> {
    const rows = await runIn(tx, SUPPRESSIONS_OF_EMAILS, [organizationId, emails, hashes]);
    const found = new Map<string, FoundSuppression>();
    for (const row of rows) if (row.erased) found.set(row.email, { reason: row.reason, erased: true });
    for (const row of rows) if (!row.erased) found.set(row.email, { reason: row.reason, erased: false });
    return found;
  }

  /** Plain suppressions; an email already suppressed is left as it is (the locks make this exact). */
  async insertPlain(tx: SqlClient, organizationId: string, rows: Array<{ email: string; reason: SuppressionReason }>): Promise<void> {
    if (rows.length === 0) return;
    await runIn(tx, INSERT_SUPPRESSIONS, [organizationId, rows.map((row) => row.email), rows.map((row) => row.reason)]);
  }

  /**
   * The plain suppression of `email` with `reason`, replacing an erased one (`hash`) and taking the
   * new reason over an existing plain one; with the plain reason it had before (null: none).
   */
  async replace(tx: SqlClient, organizationId: string, email: string, hash: string, reason: SuppressionReason) {
    const [row] = await runIn(tx, REPLACE_SUPPRESSION, [organizationId, email, reason, hash]);
    return row;
  }

  /** Removes the suppression of one address, plain and erased alike; how many were removed. */
  async remove(tx: SqlClient, organizationId: string, email: string, hash: string): Promise<number> {
    const [row] = await runIn(tx, REMOVE_SUPPRESSION, [organizationId, email, hash]);
    return row.removed;
  }

  /** The ids of the contacts of these normalized emails, by email. */
  async contactIds(tx: SqlClient, organizationId: string, emails: string[]): Promise<Map<string, string>> {
    const rows = await runIn(tx, CONTACT_IDS_OF_EMAILS, [organizationId, emails]);
    return new Map(rows.map((row) => [row.email, row.id]));
  }

  /**
   * One page of plain suppressions by email in byte order (COLLATE "C", docs/api.md "Listing
   * suppressions"), after `after` when given, optionally of one reason: keyset, never OFFSET.
   */
  page(database: Database, organizationId: string, options: { limit: number; after: string | null; reason: SuppressionReason | null }): Promise<SuppressionRow[]> {
    return database.run(SUPPRESSIONS_PAGE, [organizationId, options.after, options.reason, options.limit]);
  }
}
