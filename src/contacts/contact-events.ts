/**
 * The change events of a POST of contacts (contract section 14): `contact.created` and
 * `contact.updated`, one per contact that the request creates or changes; `unchanged` and `failed`
 * rows and dry runs have none. `data.contact` is the contact as GET /api/v2/contacts/{email} will
 * show it once the transaction commits: rendered by the write statement itself (contactJsonPart of
 * the row it writes), with the list ids and the suppression given here, which the pipeline knows
 * after its read.
 */
import type { NewEventAroundContact } from '../events/event-types';
import type { ContactFailure, PlannedChange, PlannedCreate, PlannedUpdate } from './contact-rules';
import type { ContactSourcesWrite, StoredContact, WriteContext } from './contacts.repository';

const byListId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Ordered as GET shows them: by when the membership was made, then by list id (ORDER BY created_at, list_id). */
function listIdsInOrder(memberships: Array<{ listId: string; at: number }>): string[] {
  const sorted = [...memberships].sort((a, b) => a.at - b.at || byListId(a.listId, b.listId));
  return [...new Set(sorted.map((membership) => membership.listId))];
}

/** A created contact after the write: every membership made now, the suppression kept (restored if it was erased). */
function createdSources(plan: PlannedCreate, id: string, context: WriteContext): ContactSourcesWrite {
  return {
    contactId: id,
    // Every membership is made now: in list id order (listIdsInOrder's order when the times are equal).
    listIds: [...new Set(plan.listIds)].sort(byListId),
    suppressionReason: context.suppressions.get(plan.email) ?? null,
  };
}

/** An updated contact after the write: its memberships and the ones added now; its suppression as read. */
function updatedSources(plan: PlannedUpdate, context: WriteContext): ContactSourcesWrite {
  const existing = context.existingContacts.get(plan.email) as StoredContact;
  const times = context.membershipTimes.get(plan.email) ?? [];
  const memberships = [...existing.listIds].map((listId, index) => ({ listId, at: times[index] ?? 0 }));
  const now = context.now.getTime();
  return {
    contactId: plan.contactId,
    listIds: listIdsInOrder([...memberships, ...plan.addedListIds.map((listId) => ({ listId, at: now }))]),
    suppressionReason: existing.suppressionReason,
  };
}

/**
 * The events of a real run's plans, in the order given, without their `data.contact`, and what the
 * write statement needs to render each one's contact; `createdIds` holds the ids of the contacts it creates.
 */
export function contactEvents(
  organizationId: string,
  plans: ReadonlyArray<ContactFailure | PlannedChange>,
  createdIds: ReadonlyMap<string, string>,
  context: WriteContext,
): { events: NewEventAroundContact[]; sources: ContactSourcesWrite[] } {
  const events: NewEventAroundContact[] = [];
  const sources: ContactSourcesWrite[] = [];
  for (const plan of plans) {
    if (plan.outcome === 'created') {
      const contactId = createdIds.get(plan.email) as string;
      events.push({ organizationId, type: 'contact.created', contactId, email: plan.email, data: {} });
      sources.push(createdSources(plan, contactId, context));
    } else if (plan.outcome === 'updated') {
      const data = { changedFields: plan.changedFields, addedListIds: plan.addedListIds };
      events.push({ organizationId, type: 'contact.updated', contactId: plan.contactId, email: plan.email, data });
      sources.push(updatedSources(plan, context));
    }
  }
  return { events, sources };
}
