import type { Prisma } from '../generated/prisma/client';
import type { SuppressionReason } from '../generated/prisma/enums';

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
 * Suppressions through Prisma Client (docs/extending.md): plain ones in `suppressions`, erased ones
 * in `erased_suppressions` under the HMAC of the address. Every method takes the transaction it
 * runs in, so the caller holds the email locks around it.
 */
export class SuppressionsRepository {
  /** The suppression of each given email, plain first; `hashes[i]` is the hash of `emails[i]`. */
  async findFor(tx: Prisma.TransactionClient, organizationId: string, emails: string[], hashes: string[]): Promise<Map<string, FoundSuppression>> {
    // One after the other: a transaction is one connection.
    const plain = await tx.suppression.findMany({ where: { organizationId, email: { in: emails } }, select: { email: true, reason: true } });
    const erased = await tx.erasedSuppression.findMany({
      where: { organizationId, emailHash: { in: hashes } },
      select: { emailHash: true, reason: true },
    });
    const found = new Map<string, FoundSuppression>();
    const emailOfHash = new Map(hashes.map((hash, i) => [hash, emails[i]]));
    for (const row of erased) found.set(emailOfHash.get(row.emailHash) as string, { reason: row.reason, erased: true });
    for (const row of plain) found.set(row.email, { reason: row.reason, erased: false });
    return found;
  }

  /** Plain suppressions; an email already suppressed is left as it is (the locks make this exact). */
  async insertPlain(tx: Prisma.TransactionClient, organizationId: string, rows: Array<{ email: string; reason: SuppressionReason }>): Promise<void> {
    if (rows.length === 0) return;
    await tx.suppression.createMany({ data: rows.map((row) => ({ organizationId, ...row })), skipDuplicates: true });
  }

  /** Removes the suppression of one address, plain and erased alike; how many were removed. */
  async remove(tx: Prisma.TransactionClient, organizationId: string, email: string, hash: string): Promise<number> {
    const plain = await tx.suppression.deleteMany({ where: { organizationId, email } });
    const erased = await tx.erasedSuppression.deleteMany({ where: { organizationId, emailHash: hash } });
    return plain.count + erased.count;
  }

  /**
   * One page of plain suppressions by email in byte order (COLLATE "C", docs/api.md "Listing
   * suppressions"), after `after` when given, optionally of one reason: keyset, never OFFSET.
   */
  async page(
    tx: Prisma.TransactionClient,
    organizationId: string,
    options: { limit: number; after: string | null; reason: SuppressionReason | null },
  ): Promise<SuppressionRow[]> {
    const { limit, after, reason } = options;
    // Raw: Prisma Client's API cannot compare or order with a collation (COLLATE "C", the index's).
    return tx.$queryRaw<SuppressionRow[]>`
      SELECT email, reason::text AS reason, created_at AS "createdAt"
      FROM suppressions
      WHERE organization_id = ${organizationId}
        AND (${after}::text IS NULL OR email COLLATE "C" > ${after}::text COLLATE "C")
        AND (${reason}::text IS NULL OR reason::text = ${reason}::text)
      ORDER BY email COLLATE "C"
      LIMIT ${limit}`;
  }
}
