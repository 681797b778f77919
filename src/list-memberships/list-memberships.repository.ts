import { Injectable } from '@nestjs/common';
import { readContactViews } from '../contacts/contact-views';
import { lockEmails } from '../contacts/email-locks';
import { PrismaService } from '../database/prisma.service';
import { EventsRepository } from '../events/events.repository';

/** What removing one contact from a list came to. */
export type RemovalOutcome = 'removed' | 'unchanged' | 'contact-not-found' | 'last-membership';

@Injectable()
export class ListMembershipsRepository {
  constructor(
    private readonly prisma: PrismaService,
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
   * memberships, one delete of the memberships and one bump of `updatedAt` (a change of listIds is a
   * change, as when POST adds one). A contact keeps at least one list (docs/api.md, "Removing from lists").
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
    return this.prisma.$transaction(async (tx) => {
      await lockEmails(tx, organizationId, emails);
      const contacts = await tx.contact.findMany({
        where: { organizationId, email: { in: [...emails] } },
        select: { id: true, email: true, memberships: { select: { listId: true } } },
      });
      const outcomes = new Map<string, RemovalOutcome>(emails.map((email) => [email, 'contact-not-found']));
      const removed: string[] = [];
      for (const contact of contacts) {
        const member = contact.memberships.some((membership) => membership.listId === listId);
        if (!member) outcomes.set(contact.email, 'unchanged');
        else if (contact.memberships.length === 1) outcomes.set(contact.email, 'last-membership');
        else {
          outcomes.set(contact.email, 'removed');
          removed.push(contact.id);
        }
      }
      if (removed.length > 0) {
        await tx.listMembership.deleteMany({ where: { listId, contactId: { in: removed } } });
        // now(): the transaction's time, as the POST pipeline's updates write it. Raw: Prisma's
        // updateMany (and @updatedAt) can only write a time from this process's clock.
        await tx.$executeRaw`UPDATE contacts SET updated_at = now() WHERE organization_id = ${organizationId} AND id = ANY(${removed}::text[])`;
        const removedEmails = emails.filter((email) => outcomes.get(email) === 'removed');
        const after = await readContactViews(tx, organizationId, removedEmails);
        await this.events.record(
          tx,
          removedEmails.map((email) => {
            const contact = after.get(email)!;
            return { organizationId, type: 'contact.list_removed', requestId, contactId: contact.id, email, data: { contact, listId } };
          }),
        );
      }
      return outcomes;
    });
  }
}
