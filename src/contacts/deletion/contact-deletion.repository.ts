import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database';
import { runIn } from '../../database/statements';
import { EventsRepository } from '../../events/events.repository';
import { readContactTexts } from '../contact-views';
import { lockEmails } from '../email-locks';
import { DELETE_CONTACT } from './contact-deletion.statements';

/**
 * DELETE /api/v2/contacts/{email} (docs/api.md, "Deleting contacts"): the contact and, by the
 * foreign key's cascade, its memberships go in one transaction, after the POST pipeline's lock on
 * the email, so a create racing the delete sees either the contact (with its memberships) or
 * nothing. The suppression is another table and stays. The `contact.deleted` event (the contact
 * as it was before) is written in the same transaction; an unknown contact writes nothing.
 */
@Injectable()
export class ContactDeletionRepository {
  constructor(
    private readonly database: Database,
    private readonly events: EventsRepository,
  ) {}

  /** Whether a contact with this normalized email existed (and is now gone). */
  deleteByEmail(organizationId: string, email: string, requestId: string | null): Promise<boolean> {
    return this.database.transaction(async (tx) => {
      await lockEmails(tx, organizationId, [email]);
      // Read under the lock: what the event shows is exactly what the delete removes.
      const before = (await readContactTexts(tx, organizationId, [email])).get(email);
      if (!before) return false;
      await runIn(tx, DELETE_CONTACT, [before.id, organizationId]);
      await this.events.record(tx, [{ organizationId, type: 'contact.deleted', requestId, contactId: before.id, email, contactText: before.text, data: {} }]);
      return true;
    });
  }
}
