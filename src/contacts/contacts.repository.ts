import { Injectable } from '@nestjs/common';
import { isStorableText } from '../common/storable-text';
import { Database } from '../database/database';
import type { SqlClient } from '../database/statements';
import { RESET_PLAN_CACHE_MODE, runIn } from '../database/statements';
import type { EmailHasher } from '../suppressions/erasure-secrets';
import { type CustomFieldDefinitionRow, toCustomFieldDefinition } from '../custom-fields/custom-fields.repository';
import type { CustomValues, ExistingContact, RuleContext, StandardValues, SuppressionReason } from './contact-rules';
import {
  CONTACT_JSON,
  LOCK_EMAILS,
  READ_RULE_CONTEXT,
  RESTORE_ERASED_SUPPRESSIONS,
  STANDARD_FIELD_COLUMNS,
  WRITE_CONTACTS,
  WRITE_CONTACTS_AND_ANSWER,
} from './contacts.statements';
import { eventsAroundContactValues } from '../events/event-writes';
import type { NewEventAroundContact } from '../events/event-types';
import { type AnswerWrite, storeAnswerValues } from '../requests/store-answer';

/**
 * What the pipeline's transaction read after locking the emails: the rules' context, with the
 * existing contacts as stored and what their change events need to show them as they will be.
 */
export interface WriteContext extends RuleContext {
  existingContacts: ReadonlyMap<string, StoredContact>;
  /** The transaction's now() as the timestamptz(3) columns store it: created_at/updated_at of what it writes. */
  now: Date;
  /** By email: when each of the existing contact's memberships was made (ms), in its listIds order. */
  membershipTimes: ReadonlyMap<string, number[]>;
}

/** A contact row as read, with its list ids (oldest membership first) and suppression. */
export interface StoredContact extends ExistingContact {
  suppressionReason: SuppressionReason | null;
}

export interface ContactRowWrite {
  id: string;
  email: string;
  standard: StandardValues;
  custom: CustomValues;
}

/** A contact of READ_RULE_CONTEXT's `contacts` (contactRows, contacts.statements.ts). */
export interface ContactRow {
  id: string;
  email: string;
  custom_fields: unknown;
  list_ids: string[];
  /** When each of `list_ids` was made, same order. */
  list_added_at: string[];
  suppression_reason: SuppressionReason | null;
  /** The standard columns (STANDARD_FIELD_COLUMNS). */
  [column: string]: unknown;
}

/**
 * The contacts' data. The pipeline's hot statements (contacts.statements.ts) run in its open
 * transaction on the pg pool (`tx`): each is one statement whatever the number of contacts, so a
 * batch costs a constant number of round trips. Arrays bind as text[]; ids are text columns, so an
 * id that is not a UUID matches nothing. GET /contacts/{email} is one registered statement too
 * (CONTACT_JSON), so that it shows the contact rendered as every other read does.
 */
@Injectable()
export class ContactsRepository {
  constructor(private readonly database: Database) {}

  /**
   * Transaction-scoped advisory locks on (organization, email), taken in ascending key order in
   * one statement: concurrent requests on the same emails serialize instead of racing, and two
   * requests never wait on each other in opposite orders.
   */
  async lockEmails(tx: SqlClient, organizationId: string, emails: string[]): Promise<void> {
    await runIn(tx, LOCK_EMAILS, [organizationId, emails]);
  }

  /**
   * Everything rules 4–10 need, in ONE statement (one round trip): the requested lists that are
   * active, the organization's custom field definitions, the existing contacts of these emails
   * (with list ids and suppression) and the suppressions of these emails. Runs after lockEmails,
   * in its own statement, so its snapshot already sees every write the locks waited for.
   */
  async readRuleContext(
    tx: SqlClient,
    organizationId: string,
    emails: string[],
    requestedListIds: string[],
    hashEmail: EmailHasher,
  ): Promise<WriteContext> {
    // An id PostgreSQL cannot be sent (U+0000, lone surrogate) names no list anyway.
    const listIds = requestedListIds.filter(isStorableText);
    // json columns: pg parses them.
    const [row] = await runIn(tx, READ_RULE_CONTEXT, [organizationId, emails, listIds, emails.map(hashEmail)]);
    const contacts = row.contacts as ContactRow[];
    const definitions = (row.custom_fields as CustomFieldDefinitionRow[]).map(toCustomFieldDefinition);
    const suppressions = row.suppressions as Array<{ email: string; reason: SuppressionReason; erased: boolean }>;
    return {
      now: new Date(row.now),
      membershipTimes: new Map(contacts.map((contact) => [contact.email, contact.list_added_at.map((at) => Date.parse(at))])),
      activeListIds: new Set(row.active_list_ids),
      customFields: new Map(definitions.map((definition) => [definition.key, definition])),
      existingContacts: new Map(contacts.map((contact) => [contact.email, toStoredContact(contact)])),
      // A plain suppression wins over an erased one of the same address (never both, but be exact).
      suppressions: new Map(
        [...suppressions].sort((a, b) => Number(b.erased) - Number(a.erased)).map((suppression) => [suppression.email, suppression.reason]),
      ),
      erasedSuppressions: new Set(
        suppressions.filter((s) => s.erased && !suppressions.some((p) => !p.erased && p.email === s.email)).map((s) => s.email),
      ),
    };
  }

  /**
   * The erased suppressions of addresses a create stores again become plain ones
   * (RESTORE_ERASED_SUPPRESSIONS): rare, so a statement of its own after the write.
   */
  async restoreErasedSuppressions(tx: SqlClient, organizationId: string, emails: string[], hashEmail: EmailHasher): Promise<void> {
    if (emails.length === 0) return;
    await runIn(tx, RESTORE_ERASED_SUPPRESSIONS, [organizationId, emails, emails.map(hashEmail)]);
  }

  /**
   * After writeChanges, before any other statement of the transaction: plan_cache_mode back to the
   * pool's, which the write statement left generic for its foreign-key checks (WRITE_CONTACTS).
   */
  async resetPlanCacheMode(tx: SqlClient): Promise<void> {
    await tx.query(RESET_PLAN_CACHE_MODE);
  }

  /**
   * One contact by normalized email as JSON text, as GET /contacts/{email} shows it (CONTACT_JSON:
   * one statement outside any transaction, rendered by PostgreSQL as the listing's contacts are).
   */
  async findJson(organizationId: string, email: string): Promise<string | undefined> {
    const [row] = await this.database.run(CONTACT_JSON, [organizationId, email]);
    return row?.contact;
  }

  /**
   * The contacts' writes of a request in ONE statement: new contacts, updated contacts (the whole
   * merged row, updated_at bumped) and added memberships (never removed; an existing one stays as
   * it is). Returns how many contacts were inserted (fewer than asked: the pipeline retries). The
   * unique index is the authority: a row someone else inserted meanwhile fails the statement
   * (23505, retried too), and the memberships of a contact that was not inserted are left out
   * (WRITE_CONTACTS, contacts.statements.ts).
   */
  writeChanges(tx: SqlClient, organizationId: string, changes: ContactChanges): Promise<number> {
    // Not an async function: a suspended one would keep `changes` (the rows, every event's text)
    // alive until the statement returns, to be copied by each scavenge meanwhile; only the
    // statement's values are held (by the pg client) while it runs.
    const values = [
      ...writeValues(organizationId, changes),
      ...eventsAroundContactValues(changes.requestId, changes.eventsAt, changes.events),
      ...(changes.answer ? storeAnswerValues(changes.answer) : []),
    ];
    return runIn(tx, changes.answer ? WRITE_CONTACTS_AND_ANSWER : WRITE_CONTACTS, values).then(([row]) => row.inserted);
  }
}

/** The values of WRITE_CONTACTS, in the order of its parameters (contacts.statements.ts). */
function writeValues(organizationId: string, changes: ContactChanges): unknown[] {
  const created = columnsOf(changes.creates);
  const updated = columnsOf(changes.updates);
  const memberships = changes.memberships;
  // JS arrays, serialized by pg; the statement casts each parameter to its array type.
  return [
    organizationId,
    created.ids,
    created.emails,
    ...created.standard,
    created.custom,
    updated.ids,
    ...updated.standard,
    updated.custom,
    memberships.map((m) => m.contactId),
    memberships.map((m) => m.listId),
    memberships.map((m) => m.newContact),
    memberships.map((m) => m.email),
    ...contactSourcesValues(changes.sources),
  ];
}

/** The written contacts' list ids and suppressions, as WRITE_CONTACTS takes them: one array of every list id, each contact's slice of it (1-based, inclusive). */
function contactSourcesValues(sources: readonly ContactSourcesWrite[]): unknown[] {
  const listIds: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  for (const source of sources) {
    from.push(listIds.length + 1);
    listIds.push(...source.listIds);
    to.push(listIds.length);
  }
  return [listIds, sources.map((source) => source.contactId), from, to, sources.map((source) => source.suppressionReason)];
}

/** What one POST (or a chunk of import rows) writes: its contacts, memberships, events and, for a POST, its answer. */
export interface ContactChanges {
  creates: ContactRowWrite[];
  updates: ContactRowWrite[];
  memberships: MembershipWrite[];
  /** The request id the events carry. */
  requestId: string;
  /** The events, each rendered around its contact's JSON text by the statement (contactJsonPart of the written row). */
  events: readonly NewEventAroundContact[];
  /** One per contact the events show: what they show of it besides its row. */
  sources: readonly ContactSourcesWrite[];
  /** The transaction's now(): the events' time, as the rows' createdAt/updatedAt. */
  eventsAt: Date;
  /** The request's stored answer (GET /requests/{request_id}); null for import rows. */
  answer: AnswerWrite | null;
}

/** What an event shows of a written contact besides its row: its list ids after the write and its suppression. */
export interface ContactSourcesWrite {
  contactId: string;
  /** In membership order (created_at, then list id), as GET shows them. */
  listIds: string[];
  suppressionReason: SuppressionReason | null;
}

export interface MembershipWrite {
  contactId: string;
  listId: string;
  /** The contact is created by the same statement (its membership waits for the insert). */
  newContact: boolean;
  /** The contact's (normalized) email: list_memberships keeps it for the listing by list. */
  email: string;
}

function columnsOf(rows: ContactRowWrite[]) {
  return {
    ids: rows.map((row) => row.id),
    emails: rows.map((row) => row.email),
    /** One array per standard column, in STANDARD_FIELD_COLUMNS order. */
    standard: STANDARD_FIELD_COLUMNS.map(([key]) => rows.map((row) => row.standard[key] ?? null)),
    // Object.fromEntries defines own properties, so a key like "constructor" stays plain data.
    custom: rows.map((row) => JSON.stringify(Object.fromEntries(row.custom))),
  };
}

/** Only keys with a value are kept; a stray JSON null is "no value". */
function customValues(stored: unknown): CustomValues {
  return new Map(Object.entries((stored ?? {}) as Record<string, unknown>).filter(([, value]) => value !== null));
}

function toStoredContact(row: ContactRow): StoredContact {
  return {
    id: row.id,
    email: row.email,
    standard: Object.fromEntries(STANDARD_FIELD_COLUMNS.map(([key, column]) => [key, (row[column] as string | null) ?? null])) as StandardValues,
    custom: customValues(row.custom_fields),
    listIds: new Set(row.list_ids),
    suppressionReason: row.suppression_reason,
  };
}
