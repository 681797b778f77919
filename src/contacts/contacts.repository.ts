import { Injectable } from '@nestjs/common';
import { isStorableText } from '../common/storable-text';
import { Database, type SqlClient } from '../database/database';
import { SqlParams } from '../database/sql-params';
import { type Answer, storedResponseInsert } from '../requests/stored-responses.repository';
import { type CustomFieldDefinitionRow, toCustomFieldDefinition } from '../custom-fields/custom-fields.repository';
import type { StandardFieldKey } from '../custom-fields/field-definitions';
import type { CustomValues, ExistingContact, RuleContext, StandardValues, SuppressionReason } from './contact-rules';

/** A contact row as read, with its list ids (oldest membership first) and suppression. */
export interface StoredContact extends ExistingContact {
  suppressionReason: SuppressionReason | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ContactRowWrite {
  id: string;
  email: string;
  standard: StandardValues;
  custom: CustomValues;
}

/**
 * The one mapping of standard fields to their columns: every statement below is built from it,
 * so adding a standard field touches this table (and the schema) only.
 */
export const STANDARD_FIELD_COLUMNS: ReadonlyArray<readonly [StandardFieldKey, string]> = [
  ['firstName', 'first_name'],
  ['lastName', 'last_name'],
  ['phone', 'phone'],
  ['company', 'company'],
  ['jobTitle', 'job_title'],
  ['city', 'city'],
  ['country', 'country'],
];
const STANDARD_COLUMNS = STANDARD_FIELD_COLUMNS.map(([, column]) => column);

/** The stored answer written by the same statement as the contacts (GET /requests/{request_id}). */
export interface AnswerWrite {
  requestId: string;
  /** The X-Client-Request-Id the POST sent, if any (GET /requests?clientRequestId=). */
  clientRequestId: string | null;
  answer: Answer;
}

interface ContactRow {
  id: string;
  email: string;
  custom_fields: unknown;
  list_ids: string[];
  suppression_reason: SuppressionReason | null;
  created_at: Date;
  updated_at: Date;
  /** The standard columns (STANDARD_FIELD_COLUMNS). */
  [column: string]: unknown;
}

/**
 * Set-based SQL of the contacts pipeline, sent on the pg pool directly (database.ts): every method
 * is one statement whatever the number of contacts, so a batch costs a constant number of round
 * trips. Arrays bind as text[]; ids are text columns, so an id that is not a UUID matches nothing.
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
    await tx.query({
      name: 'contacts.lock-emails',
      text: `SELECT count(*)::int AS locked FROM (
        SELECT pg_advisory_xact_lock(k) FROM (
          SELECT DISTINCT hashtextextended($1 || ':' || e, 0) AS k
          FROM unnest($2::text[]) AS e
          ORDER BY k
        ) AS keys
      ) AS locks`,
      values: [organizationId, emails],
    });
  }

  /**
   * Everything rules 4–10 need, in ONE statement (one round trip): the requested lists that are
   * active, the organization's custom field definitions, the existing contacts of these emails
   * (with list ids and suppression) and the suppressions of these emails. Runs after lockEmails,
   * in its own statement, so its snapshot already sees every write the locks waited for.
   */
  async readRuleContext(tx: SqlClient, organizationId: string, emails: string[], requestedListIds: string[]): Promise<RuleContext> {
    // An id PostgreSQL cannot be sent (U+0000, lone surrogate) names no list anyway.
    const listIds = requestedListIds.filter(isStorableText);
    const { rows } = await tx.query<RuleContextRow>({
      name: 'contacts.read-rule-context',
      text: `SELECT
        ARRAY(SELECT l.id FROM lists l
              WHERE l.organization_id = $1 AND NOT l.archived AND l.id = ANY($3::text[])
        ) AS active_list_ids,
        (SELECT COALESCE(json_agg(json_build_object('key', f.key, 'type', f.type, 'required', f.required,
                                                    'defaultValue', f.default_value, 'options', f.options)
                                  ORDER BY f.created_at, f.key), '[]'::json)
         FROM custom_fields f WHERE f.organization_id = $1) AS custom_fields,
        (SELECT COALESCE(json_agg(c), '[]'::json) FROM (${CONTACT_ROWS}) AS c) AS contacts,
        (SELECT COALESCE(json_agg(json_build_object('email', s.email, 'reason', s.reason)), '[]'::json)
         FROM suppressions s
         WHERE s.organization_id = $1 AND s.email = ANY($2::text[])) AS suppressions`,
      values: [organizationId, emails, listIds],
    });
    const [row] = rows;
    const contacts = parsedJson<ContactRow[]>(row.contacts);
    const definitions = parsedJson<CustomFieldDefinitionRow[]>(row.custom_fields).map(toCustomFieldDefinition);
    const suppressions = parsedJson<Array<{ email: string; reason: SuppressionReason }>>(row.suppressions);
    return {
      activeListIds: new Set(row.active_list_ids),
      customFields: new Map(definitions.map((definition) => [definition.key, definition])),
      existingContacts: new Map(contacts.map((contact) => [contact.email, toStoredContact(contact)])),
      suppressions: new Map(suppressions.map((suppression) => [suppression.email, suppression.reason])),
    };
  }

  /** One contact by normalized email, outside any transaction (GET /contacts/{email}). */
  async findByEmail(organizationId: string, email: string): Promise<StoredContact | undefined> {
    const [row] = await this.database.query<ContactRow>({
      name: 'contacts.find-by-email',
      text: CONTACT_ROWS,
      values: [organizationId, [email]],
    });
    return row ? toStoredContact(row) : undefined;
  }

  /**
   * Every write of a request in ONE statement: new contacts, updated contacts (the whole merged
   * row, updated_at bumped), added memberships (never removed; an existing one stays as it is) and,
   * when given, the request's stored answer. Returns how many contacts were inserted. ON CONFLICT
   * is a safety net: the unique index is the authority, so a row someone else inserted meanwhile
   * is reported (by the count) instead of failing the statement, and the memberships of a contact
   * that was not inserted are left out.
   */
  async writeChanges(
    tx: SqlClient,
    organizationId: string,
    changes: { creates: ContactRowWrite[]; updates: ContactRowWrite[]; memberships: MembershipWrite[] },
    stored?: AnswerWrite,
  ): Promise<number> {
    const p = new SqlParams();
    const org = p.add(organizationId);
    const created = columnsOf(changes.creates);
    const updated = columnsOf(changes.updates);
    const memberships = changes.memberships;
    const createdArrays = [
      p.add(created.ids),
      p.add(created.emails),
      ...created.standard.map((values) => p.add(values)),
      p.add(created.custom),
    ];
    const updatedArrays = [p.add(updated.ids), ...updated.standard.map((values) => p.add(values)), p.add(updated.custom)];
    const membershipArrays = [
      `${p.add(memberships.map((m) => m.contactId))}::text[]`,
      `${p.add(memberships.map((m) => m.listId))}::text[]`,
      `${p.add(memberships.map((m) => m.newContact))}::boolean[]`,
    ];
    const storedAnswer = stored ? `, stored AS (${storedResponseInsert(p, organizationId, stored.requestId, stored.answer, stored.clientRequestId)})` : '';
    const { rows } = await tx.query<{ inserted: number }>({
      // The text depends only on whether the answer is stored: two prepared variants.
      name: stored ? 'contacts.write-and-store' : 'contacts.write',
      text: `WITH inserted AS (
        INSERT INTO contacts (id, organization_id, email, ${STANDARD_COLUMNS.join(', ')}, custom_fields, created_at, updated_at)
        SELECT r.id, ${org}, r.email, ${STANDARD_COLUMNS.map((c) => `r.${c}`).join(', ')}, r.custom_fields::jsonb, now(), now()
        FROM unnest(${createdArrays.map((a) => `${a}::text[]`).join(', ')})
             AS r(id, email, ${STANDARD_COLUMNS.join(', ')}, custom_fields)
        ON CONFLICT (organization_id, email) DO NOTHING
        RETURNING id
      ), updated AS (
        UPDATE contacts AS c
        SET ${STANDARD_COLUMNS.map((c) => `${c} = r.${c}`).join(', ')}, custom_fields = r.custom_fields::jsonb,
            updated_at = now()
        FROM unnest(${updatedArrays.map((a) => `${a}::text[]`).join(', ')})
             AS r(id, ${STANDARD_COLUMNS.join(', ')}, custom_fields)
        WHERE c.id = r.id AND c.organization_id = ${org}
        RETURNING c.id
      ), added_memberships AS (
        INSERT INTO list_memberships (contact_id, list_id)
        SELECT m.contact_id, m.list_id
        FROM unnest(${membershipArrays.join(', ')}) AS m(contact_id, list_id, new_contact)
        WHERE NOT m.new_contact OR m.contact_id IN (SELECT id FROM inserted)
        ON CONFLICT DO NOTHING
      )${storedAnswer}
      SELECT (SELECT count(*)::int FROM inserted) AS inserted`,
      values: p.values,
    });
    return rows[0].inserted;
  }
}

export interface MembershipWrite {
  contactId: string;
  listId: string;
  /** The contact is created by the same statement (its membership waits for the insert). */
  newContact: boolean;
}

interface RuleContextRow {
  active_list_ids: string[];
  custom_fields: unknown;
  contacts: unknown;
  suppressions: unknown;
}

/**
 * The contacts of organization $1 with the (normalized) emails $2, with list ids (oldest
 * membership first) and suppression.
 */
const CONTACT_ROWS = `
    SELECT c.id, c.email, ${STANDARD_COLUMNS.map((column) => `c.${column}`).join(', ')},
           c.custom_fields, c.created_at, c.updated_at,
           -- Per contact through the membership key, never a join over every membership: the
           -- plan stays an index lookup whatever the table statistics say.
           COALESCE(
             (SELECT array_agg(m.list_id ORDER BY m.created_at, m.list_id) FROM list_memberships m WHERE m.contact_id = c.id),
             '{}'
           ) AS list_ids,
           (SELECT s.reason::text FROM suppressions s
             WHERE s.organization_id = c.organization_id AND s.email = c.email) AS suppression_reason
    FROM contacts c
    WHERE c.organization_id = $1 AND c.email = ANY($2::text[])`;

/** json columns arrive parsed or as text, depending on the driver path. */
function parsedJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function columnsOf(rows: ContactRowWrite[]) {
  return {
    ids: rows.map((row) => row.id),
    emails: rows.map((row) => row.email),
    /** One array per standard column, in STANDARD_FIELD_COLUMNS order. */
    standard: STANDARD_FIELD_COLUMNS.map(([key]) => rows.map((row) => row.standard[key])),
    // Object.fromEntries defines own properties, so a key like "constructor" stays plain data.
    custom: rows.map((row) => JSON.stringify(Object.fromEntries(row.custom))),
  };
}

function toStoredContact(row: ContactRow): StoredContact {
  const stored = parsedJson<Record<string, unknown> | null>(row.custom_fields);
  return {
    id: row.id,
    email: row.email,
    standard: Object.fromEntries(STANDARD_FIELD_COLUMNS.map(([key, column]) => [key, (row[column] as string | null) ?? null])) as StandardValues,
    // Only keys with a value are kept; a stray JSON null is "no value".
    custom: new Map(Object.entries(stored ?? {}).filter(([, value]) => value !== null)),
    listIds: new Set(row.list_ids),
    suppressionReason: row.suppression_reason,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
