import { isStorableText } from '../common/storable-text';
import { lockEmails } from '../contacts/email-locks';
import { isValidEmail, normalizeEmail } from '../contacts/email';
import { RequestError } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import type { PrismaClient } from '../generated/prisma/client';
import type { SuppressionReason } from '../generated/prisma/enums';
import { ErasureSecrets } from './erasure-secrets';
import { SuppressionsRepository, type SuppressionRow } from './suppressions.repository';

export interface SuppressInput {
  /** Anything the caller sent; a non-string or invalid email is the row's INVALID_EMAIL. */
  email: unknown;
  reason: SuppressionReason;
}

export type SuppressResult =
  | { index: number; email: string; status: 'suppressed' | 'unchanged'; reason: SuppressionReason }
  | { index: number; email: string | null; status: 'failed'; code: 'INVALID_EMAIL' | 'DUPLICATE_IN_REQUEST'; message: string };

/**
 * The rules of suppressions, in one place for the API (suppressions.controller.ts) and the admin
 * command line (`unsuppress`): docs/api.md, "Suppressions". Every change takes the per-email locks
 * of the POST pipeline first, and erased (hashed) suppressions count like plain ones.
 */
export class SuppressionsService {
  private readonly repository = new SuppressionsRepository();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly secrets: ErasureSecrets,
  ) {}

  /**
   * Suppresses each valid, first-seen email (a contact need not exist); an email already
   * suppressed keeps its reason (`unchanged`). Set-based: the same statements for 1 and 50 rows,
   * all in one transaction.
   */
  async suppress(organizationId: string, inputs: readonly SuppressInput[]): Promise<SuppressResult[]> {
    const seen = new Set<string>();
    const screened = inputs.map((input, index): SuppressResult | { index: number; email: string; reason: SuppressionReason } => {
      const email = typeof input.email === 'string' ? normalizeEmail(input.email) : null;
      if (email === null || !isValidEmail(email)) {
        return { index, email, status: 'failed', code: 'INVALID_EMAIL', message: 'The email is missing or not a valid address' };
      }
      if (seen.has(email)) {
        return { index, email, status: 'failed', code: 'DUPLICATE_IN_REQUEST', message: 'The email already appeared in an earlier row' };
      }
      seen.add(email);
      return { index, email, reason: input.reason };
    });
    const candidates = screened.filter((row): row is { index: number; email: string; reason: SuppressionReason } => !('status' in row));
    if (candidates.length === 0) return screened as SuppressResult[];

    const hasher = await this.secrets.hasherFor(organizationId);
    const emails = candidates.map((row) => row.email);
    const found = await this.prisma.$transaction(async (tx) => {
      await lockEmails(tx, organizationId, emails);
      const existing = await this.repository.findFor(tx, organizationId, emails, emails.map(hasher));
      await this.repository.insertPlain(
        tx,
        organizationId,
        candidates.filter((row) => !existing.has(row.email)).map(({ email, reason }) => ({ email, reason })),
      );
      return existing;
    });
    return screened.map((row): SuppressResult => {
      if ('status' in row) return row;
      const kept = found.get(row.email);
      return kept
        ? { index: row.index, email: row.email, status: 'unchanged', reason: kept.reason }
        : { index: row.index, email: row.email, status: 'suppressed', reason: row.reason };
    });
  }

  /**
   * Lifts the suppression of one address, plain or erased. `complained` only when
   * `allowComplained` (the admin command line: a complaint is the recipient's own word).
   * Not suppressed (or not a valid address): SUPPRESSION_NOT_FOUND.
   */
  async lift(organizationId: string, rawEmail: string, options: { allowComplained: boolean }): Promise<{ email: string; reason: SuppressionReason }> {
    const email = normalizeEmail(rawEmail);
    const notFound = () => new RequestError(RequestErrorCode.SUPPRESSION_NOT_FOUND, 'This email is not suppressed in this organization');
    if (!isValidEmail(email)) throw notFound();
    const hash = (await this.secrets.hasherFor(organizationId))(email);
    return this.prisma.$transaction(async (tx) => {
      await lockEmails(tx, organizationId, [email]);
      const found = (await this.repository.findFor(tx, organizationId, [email], [hash])).get(email);
      if (!found) throw notFound();
      if (found.reason === 'complained' && !options.allowComplained) {
        throw new RequestError(
          RequestErrorCode.SUPPRESSION_LOCKED,
          'A complained suppression is the recipient’s own word: only the admin command line (unsuppress) lifts it',
        );
      }
      await this.repository.remove(tx, organizationId, email, hash);
      return { email, reason: found.reason };
    });
  }

  /** One page of plain suppressions by email in byte order, after `after`. */
  async page(organizationId: string, options: { limit: number; after: string | null; reason: SuppressionReason | null }): Promise<SuppressionRow[]> {
    if (options.after !== null && !isStorableText(options.after)) return [];
    return this.repository.page(this.prisma, organizationId, options);
  }
}
