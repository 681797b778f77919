import { isStorableText } from '../common/storable-text';
import { lockEmails } from '../contacts/email-locks';
import { isValidEmail, normalizeEmail } from '../contacts/email';
import type { Database } from '../database/database';
import type { SqlClient } from '../database/statements';
import { RequestError } from '../errors/request-error';
import { RequestErrorCode } from '../errors/error-codes';
import { EventsRepository } from '../events/events.repository';
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
 * of the POST pipeline first, and erased (hashed) suppressions count like plain ones. Each change
 * writes its event (`suppression.created`, `suppression.deleted`) in its transaction; an address
 * already suppressed writes none.
 */
export class SuppressionsService {
  private readonly repository = new SuppressionsRepository();

  constructor(
    private readonly database: Database,
    private readonly secrets: ErasureSecrets,
    private readonly events: EventsRepository,
  ) {}

  /**
   * Suppresses each valid, first-seen email (a contact need not exist); an email already
   * suppressed keeps its reason (`unchanged`). Set-based: the same statements for 1 and 50 rows,
   * all in one transaction, with one `suppression.created` per new suppression (none for a contact:
   * contract section 16, one event per change).
   */
  async suppress(organizationId: string, inputs: readonly SuppressInput[], requestId: string | null): Promise<SuppressResult[]> {
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
    const found = await this.database.transaction(async (tx) => {
      await lockEmails(tx, organizationId, emails);
      const existing = await this.repository.findFor(tx, organizationId, emails, emails.map(hasher));
      const created = candidates.filter((row) => !existing.has(row.email)).map(({ email, reason }) => ({ email, reason }));
      await this.repository.insertPlain(tx, organizationId, created);
      await this.recordSuppressionEvents(tx, organizationId, 'suppression.created', created, requestId);
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
   * Not suppressed (or not a valid address): SUPPRESSION_NOT_FOUND. Writes `suppression.deleted`;
   * lifting an erased (hashed) suppression names no address in it (the service keeps the address
   * nowhere, and the event must not store it again).
   */
  async lift(
    organizationId: string,
    rawEmail: string,
    options: { allowComplained: boolean; requestId: string | null },
  ): Promise<{ email: string; reason: SuppressionReason }> {
    const email = normalizeEmail(rawEmail);
    const notFound = () => new RequestError(RequestErrorCode.SUPPRESSION_NOT_FOUND, 'This email is not suppressed in this organization');
    if (!isValidEmail(email)) throw notFound();
    const hash = (await this.secrets.hasherFor(organizationId))(email);
    return this.database.transaction(async (tx) => {
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
      await this.recordSuppressionEvents(tx, organizationId, 'suppression.deleted', [{ email: found.erased ? null : email, reason: found.reason }], options.requestId);
      return { email, reason: found.reason };
    });
  }

  /**
   * The operator's suppression of one address (admin `suppress`): the address is named again, so
   * it has one suppression, the plain one (an erased one is replaced), with the operator's reason.
   * docs/decisions.md, "Change events of the other write paths": a new plain suppression, or a new
   * reason, is suppression.created; the same reason again is no change. `email` is normalized.
   */
  async replace(organizationId: string, email: string, reason: SuppressionReason, requestId: string | null): Promise<{ email: string; reason: SuppressionReason }> {
    const hash = (await this.secrets.hasherFor(organizationId))(email);
    return this.database.transaction(async (tx) => {
      await lockEmails(tx, organizationId, [email]);
      const row = await this.repository.replace(tx, organizationId, email, hash, reason);
      if (row.before !== row.reason) {
        await this.recordSuppressionEvents(tx, organizationId, 'suppression.created', [{ email: row.email, reason: row.reason }], requestId);
      }
      return { email: row.email, reason: row.reason };
    });
  }

  /**
   * Suppression events, in the caller's transaction: `data.suppression` is `{ email, reason }`;
   * `contactId` is the contact of that address when one exists (webhooks keep a contact's events
   * in order), found in one read whatever the number of rows.
   */
  async recordSuppressionEvents(
    tx: SqlClient,
    organizationId: string,
    type: 'suppression.created' | 'suppression.deleted',
    suppressions: ReadonlyArray<{ email: string | null; reason: SuppressionReason }>,
    requestId: string | null,
  ): Promise<void> {
    if (suppressions.length === 0) return;
    const named = suppressions.flatMap((row) => (row.email === null ? [] : [row.email]));
    const contactOf = named.length > 0 ? await this.repository.contactIds(tx, organizationId, named) : new Map<string, string>();
    await this.events.record(
      tx,
      suppressions.map(({ email, reason }) => ({
        organizationId,
        type,
        requestId,
        contactId: email === null ? null : (contactOf.get(email) ?? null),
        email,
        data: { suppression: { email, reason } },
      })),
    );
  }

  /** One page of plain suppressions by email in byte order, after `after`. */
  async page(organizationId: string, options: { limit: number; after: string | null; reason: SuppressionReason | null }): Promise<SuppressionRow[]> {
    if (options.after !== null && !isStorableText(options.after)) return [];
    return this.repository.page(this.database, organizationId, options);
  }
}
