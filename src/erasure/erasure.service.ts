import { INDEXED_EMAIL_MAX_LENGTH } from '../requests/store-answer';
import { isStorableText } from '../common/storable-text';
import { lockEmails } from '../contacts/email-locks';
import { normalizeEmail } from '../contacts/email';
import type { Database } from '../database/database';
import { runIn } from '../database/statements';
import { EventsRepository } from '../events/events.repository';
import { ErasureSecrets } from '../suppressions/erasure-secrets';
import { ERASE_ADDRESS } from './erasure.statements';
import { eraseImportRows } from '../imports/import-erasure';

export interface ErasureOutcome {
  contactDeleted: boolean;
  suppressionKept: boolean;
  storedAnswersErased: number;
  eventsRedacted: number;
  /** Import rows that held the address (contract 17): their content and email removed. */
  importRowsErased: number;
}

/**
 * The right to erasure (docs/api.md, "Erasing a contact"), in one place for the API and the admin
 * command line (`contact erase`): the address leaves every table in one transaction, under the
 * per-email lock of the POST pipeline, so a create racing it either commits first (and is erased)
 * or runs after (and meets the erased suppression). The change events that hold the address are
 * redacted (they stay, without it) and `contact.erased` is written, in the same transaction.
 */
export class ErasureService {
  constructor(
    private readonly database: Database,
    private readonly secrets: ErasureSecrets,
    private readonly events: EventsRepository,
  ) {}

  /**
   * Erases the normalized path value wherever the service stored it as an address, valid or not.
   * An address never seen is all zeros (repeatable). `requestId`: the API request's, null from the
   * admin command line.
   */
  async erase(organizationId: string, rawEmail: string, requestId: string | null): Promise<ErasureOutcome> {
    const email = normalizeEmail(rawEmail);
    // PostgreSQL cannot hold U+0000 or a lone surrogate as text: no row can hold this value.
    if (!isStorableText(email)) return { contactDeleted: false, suppressionKept: false, storedAnswersErased: 0, eventsRedacted: 0, importRowsErased: 0 };
    const hash = (await this.secrets.hasherFor(organizationId))(email);
    // No bound on the whole transaction: an address with tens of thousands of events is redacted in
    // rounds of EVENT_REDACTION_CHUNK, each statement bounded by DB_STATEMENT_TIMEOUT_MS.
    return this.database.transaction(async (tx) => {
      await lockEmails(tx, organizationId, [email]);
      // One statement (ERASE_ADDRESS): the contact with its memberships, the suppression kept as
      // its hash, every stored answer holding the address (the whole answer, even a batch's that
      // held other addresses: found through the GIN index on stored_responses.emails).
      const [erased] = await runIn(tx, ERASE_ADDRESS, [organizationId, email, hash, email.length <= INDEXED_EMAIL_MAX_LENGTH, JSON.stringify(email)]);
      const contactIds = erased.contact_ids;
      // Every earlier event of the address (and so of its contact) keeps its place in the feed, without the address.
      const eventsRedacted = await this.events.redactEventsOf(tx, organizationId, email);
      const importRowsErased = await eraseImportRows(tx, organizationId, email);
      // Only the id: the event announces the erasure without naming what was erased.
      await this.events.record(
        tx,
        contactIds.map((id) => ({ organizationId, type: 'contact.erased', requestId, contactId: id, email: null, data: { contact: { id } } })),
      );
      return {
        contactDeleted: erased.contact_deleted,
        suppressionKept: erased.suppression_kept,
        storedAnswersErased: erased.stored_answers_erased,
        eventsRedacted,
        importRowsErased,
      };
    });
  }
}
