import { Injectable } from '@nestjs/common';
import { isValidEmail, normalizeEmail } from '../contacts/email';
import { isStorableText } from '../common/storable-text';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError } from '../errors/request-error';
import { ListMembershipsRepository, type RemovalOutcome } from './list-memberships.repository';

/** docs/api.md, "Removing from lists": at most 50 emails per batch. */
export const REMOVAL_BATCH_LIMIT = 50;
export const REMOVAL_ROW_CODES = ['INVALID_EMAIL', 'DUPLICATE_IN_REQUEST', 'CONTACT_NOT_FOUND', 'LAST_LIST_MEMBERSHIP'] as const;
export type RemovalRowCode = (typeof REMOVAL_ROW_CODES)[number];

export type RemovalResult =
  | { email: string; status: 'removed' | 'unchanged' }
  | { email: string | null; status: 'failed'; code: RemovalRowCode; message: string };

const FAILURE_OF: Partial<Record<RemovalOutcome, { code: RemovalRowCode; message: string }>> = {
  'contact-not-found': { code: 'CONTACT_NOT_FOUND', message: 'No contact with this email in this organization' },
  'last-membership': {
    code: 'LAST_LIST_MEMBERSHIP',
    message: 'This is the contact’s only list, and a contact is always in at least one list: delete the contact instead',
  },
};

/** Removing contacts from a list, one or a batch: the rows' checks in order, then one transaction. */
@Injectable()
export class ListMembershipsService {
  constructor(private readonly memberships: ListMembershipsRepository) {}

  /** 404 LIST_NOT_FOUND for an unknown or foreign list, before anything else is read. */
  async requireList(organizationId: string, listId: string): Promise<void> {
    if (!(isStorableText(listId) && (await this.memberships.listExists(organizationId, listId)))) {
      throw new RequestError(RequestErrorCode.LIST_NOT_FOUND, 'No list with this id in this organization');
    }
  }

  /**
   * One result per row, in row order: INVALID_EMAIL (not a string, or not a valid email once
   * normalized), DUPLICATE_IN_REQUEST (a later row repeating an earlier row's email), then what the
   * transaction found: removed, unchanged (not a member), CONTACT_NOT_FOUND, LAST_LIST_MEMBERSHIP.
   */
  async remove(organizationId: string, listId: string, rows: readonly unknown[], requestId: string): Promise<RemovalResult[]> {
    const firstRowOf = new Map<string, number>();
    const screened = rows.map((raw, index): RemovalResult | { email: string; status: 'pending' } => {
      if (typeof raw !== 'string') {
        return { email: null, status: 'failed', code: 'INVALID_EMAIL', message: 'email must be a string' };
      }
      const email = normalizeEmail(raw);
      if (!isValidEmail(email)) return { email, status: 'failed', code: 'INVALID_EMAIL', message: 'email is not a valid email address' };
      const first = firstRowOf.get(email);
      if (first !== undefined) {
        return { email, status: 'failed', code: 'DUPLICATE_IN_REQUEST', message: `email already appears in row ${first} of this request` };
      }
      firstRowOf.set(email, index);
      return { email, status: 'pending' };
    });
    const emails = [...firstRowOf.keys()];
    const outcomes = emails.length > 0 ? await this.memberships.removeFromList(organizationId, listId, emails, requestId) : new Map<string, RemovalOutcome>();
    return screened.map((row): RemovalResult => {
      if (row.status !== 'pending') return row;
      const outcome = outcomes.get(row.email) as RemovalOutcome;
      const failure = FAILURE_OF[outcome];
      if (failure) return { email: row.email, status: 'failed', ...failure };
      return { email: row.email, status: outcome as 'removed' | 'unchanged' };
    });
  }
}
