/**
 * The change events of a POST of contacts (contract section 14): `contact.created` and
 * `contact.updated`, one per contact that the request creates or changes; `unchanged` and `failed`
 * rows and dry runs have none. `data.contact` is the contact as GET /api/v2/contacts/{email} will
 * show it once the transaction commits, rendered by the same `renderContact`.
 */
import type { NewEvent } from '../events/event-types';
import type { ContactFailure, PlannedChange, PlannedCreate, PlannedUpdate } from './contact-rules';
import { renderContact } from './contact-results';
import type { StoredContact, WriteContext } from './contacts.repository';

const byListId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Ordered as GET shows them: by when the membership was made, then by list id (ORDER BY created_at, list_id). */
function listIdsInOrder(memberships: Array<{ listId: string; at: number }>): Set<string> {
  const sorted = [...memberships].sort((a, b) => a.at - b.at || byListId(a.listId, b.listId));
  return new Set(sorted.map((membership) => membership.listId));
}

/** A created contact after the write: every membership made now, the suppression kept (restored if it was erased). */
function createdContact(plan: PlannedCreate, id: string, context: WriteContext): StoredContact {
  return {
    id,
    email: plan.email,
    standard: plan.standard,
    custom: plan.custom,
    // Every membership is made now: in list id order (listIdsInOrder's order when the times are equal).
    listIds: new Set([...plan.listIds].sort(byListId)),
    suppressionReason: context.suppressions.get(plan.email) ?? null,
    createdAt: context.now,
    updatedAt: context.now,
  };
}

/** An updated contact after the write: the merged row, its memberships and the ones added now. */
function updatedContact(plan: PlannedUpdate, context: WriteContext): StoredContact {
  const existing = context.existingContacts.get(plan.email) as StoredContact;
  const times = context.membershipTimes.get(plan.email) ?? [];
  const memberships = [...existing.listIds].map((listId, index) => ({ listId, at: times[index] ?? 0 }));
  const now = context.now.getTime();
  return {
    ...existing,
    standard: plan.standard,
    custom: plan.custom,
    listIds: listIdsInOrder([...memberships, ...plan.addedListIds.map((listId) => ({ listId, at: now }))]),
    updatedAt: context.now,
  };
}

/** The events of a real run's plans, in the order given; `createdIds` holds the ids of the contacts it creates. */
export function contactEvents(
  organizationId: string,
  plans: ReadonlyArray<ContactFailure | PlannedChange>,
  createdIds: ReadonlyMap<string, string>,
  context: WriteContext,
): NewEvent[] {
  return plans.flatMap((plan): NewEvent[] => {
    switch (plan.outcome) {
      case 'created': {
        const contact = renderContact(createdContact(plan, createdIds.get(plan.email) as string, context));
        return [{ organizationId, type: 'contact.created', contactId: contact.id, email: plan.email, data: { contact } }];
      }
      case 'updated': {
        const contact = renderContact(updatedContact(plan, context));
        const data = { contact, changedFields: plan.changedFields, addedListIds: plan.addedListIds };
        return [{ organizationId, type: 'contact.updated', contactId: contact.id, email: plan.email, data }];
      }
      default:
        return [];
    }
  });
}
