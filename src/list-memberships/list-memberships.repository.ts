import { Injectable } from '@nestjs/common';
import { readContactTexts } from '../contacts/contact-views';
import { lockEmails } from '../contacts/email-locks';
import { Database } from '../database/database';
import { PrismaService } from '../database/prisma.service';
import { runIn } from '../database/statements';
import { EventsRepository } from '../events/events.repository';
import { MEMBERSHIPS_OF_EMAILS, REMOVE_MEMBERSHIPS } from './list-memberships.statements';

/** What removing one contact from a list came to. */
export type RemovalOutcome = 'removed' | 'unchanged' | 'contact-not-found' | 'last-membership';

@Injectable()
export class ListMembershipsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly database: Database,
    private readonly events: EventsRepository,
  ) {}

  /** Whether the list belongs to the organization (archived or not: a membership of an archived list is one). */
  async listExists(organizationId: string, listId: string): Promise<boolean> {
    return (await this.prisma.list.count({ where: { id: listId, organizationId } })) > 0;
  }

  /**
   * Takes the contacts of these normalized, distinct emails off the list, in ONE transaction and
   * the same number of statements for 1 or 50 emails: the POST pipeline's email locks (so the
   * memberships read next cannot change before the end), one read of the contacts with their
   * memberships, one statement that deletes the memberships and bumps `updatedAt` (a change of
   * listIds is a change, as when POST adds one; list-memberships.statements.ts). A contact keeps
   * at least one list (docs/api.md, "Removing from lists").
   * Each removal writes its `contact.list_removed` event (the contact as it is after the removal)
   * in the same transaction, in row order: a second read of the removed contacts and one insert,
   * whatever their number. `unchanged` and failed rows write none.
   */
  removeFromList(
    organizationId: string,
    listId: string,
    emails: readonly string[],
    requestId: string | null,
  ): Promise<Map<string, RemovalOutcome>> {
    return this.database.transaction(async (tx) => {
      await lockEmails(tx, organizationId, emails);
      const contacts = await runIn(tx, MEMBERSHIPS_OF_EMAILS, [organizationId, [...emails], listId]);
      const outcomes = new Map<string, RemovalOutcome>(emails.map((email) => [email, 'contact-not-found']));
      const removed: string[] = [];
      for (const contact of contacts) {
        if (!contact.member) outcomes.set(contact.email, 'unchanged');
        else if (contact.lists === 1) outcomes.set(contact.email, 'last-membership');
        else {
          outcomes.set(contact.email, 'removed');
          removed.push(contact.id);
        }
      }
      if (removed.length > 0) {
        await runIn(tx, REMOVE_MEMBERSHIPS, [organizationId, listId, removed]);
        const removedEmails = emails.filter((email) => outcomes.get(email) === 'removed');
        const after = await readContactTexts(tx, organizationId, removedEmails);
        await this.events.record(
          tx,
          removedEmails.map((email) => {
            const contact = after.get(email)!;
            return { organizationId, type: 'contact.list_removed', requestId, contactId: contact.id, email, contactText: contact.text, data: { listId } };
          }),
        );
      }
      return outcomes;
    });
  }
}
