import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../database/prisma.service';
import { lockEmails } from '../email-locks';

/**
 * DELETE /api/v2/contacts/{email} (docs/api.md, "Deleting contacts"): the contact and, by the
 * foreign key's cascade, its memberships go in one transaction, after the POST pipeline's lock on
 * the email, so a create racing the delete sees either the contact (with its memberships) or
 * nothing. The suppression is another table and stays.
 */
@Injectable()
export class ContactDeletionRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Whether a contact with this normalized email existed (and is now gone). */
  deleteByEmail(organizationId: string, email: string): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      await lockEmails(tx, organizationId, [email]);
      const { count } = await tx.contact.deleteMany({ where: { organizationId, email } });
      return count > 0;
    });
  }
}
