import { Injectable } from '@nestjs/common';
import { isStorableText } from '../common/storable-text';
import { type DatabaseClient, PrismaService } from '../database/prisma.service';
import { Prisma } from '../generated/prisma/client';
import { type CustomFieldDefinitionRow, toCustomFieldDefinition } from '../custom-fields/custom-fields.repository';
import { STANDARD_FIELD_KEYS } from '../custom-fields/field-definitions';
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

interface ContactRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  company: string | null;
  job_title: string | null;
  city: string | null;
  country: string | null;
  custom_fields: unknown;
  list_ids: string[];
  suppression_reason: SuppressionReason | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Set-based SQL of the contacts pipeline: every method is one statement whatever the number of
 * contacts, so a batch costs a constant number of round trips. Arrays bind as text[]; ids are
 * text columns, so an id that is not a UUID simply matches nothing.
 */
@Injectable()
export class ContactsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Transaction-scoped advisory locks on (organization, email), taken in ascending key order in
   * one statement: concurrent requests on the same emails serialize instead of racing, and two
   * requests never wait on each other in opposite orders.
   */
  async lockEmails(tx: DatabaseClient, organizationId: string, emails: string[]): Promise<void> {
    await tx.$queryRaw`
      SELECT count(*)::int AS locked FROM (
        SELECT pg_advisory_xact_lock(k) FROM (
          SELECT DISTINCT hashtextextended(${organizationId} || ':' || e, 0) AS k
          FROM unnest(${emails}::text[]) AS e
          ORDER BY k
        ) AS keys
      ) AS locks`;
  }

  /**
   * Everything rules 4–10 need, in ONE statement (one round trip): the requested lists that are
   * active, the organization's custom field definitions, the existing contacts of these emails
   * (with list ids and suppression) and the suppressions of these emails. Runs after lockEmails,
   * in its own statement, so its snapshot already sees every write the locks waited for.
   */
  async readRuleContext(tx: DatabaseClient, organizationId: string, emails: string[], requestedListIds: string[]): Promise<RuleContext> {
    // An id PostgreSQL cannot be sent (U+0000, lone surrogate) names no list anyway.
    const listIds = requestedListIds.filter(isStorableText);
    const [row] = await tx.$queryRaw<RuleContextRow[]>`
      SELECT
        ARRAY(SELECT l.id FROM lists l
              WHERE l.organization_id = ${organizationId} AND NOT l.archived AND l.id = ANY(${listIds}::text[])
        ) AS active_list_ids,
        (SELECT COALESCE(json_agg(json_build_object('key', f.key, 'type', f.type, 'required', f.required,
                                                    'defaultValue', f.default_value, 'options', f.options)
                                  ORDER BY f.created_at, f.key), '[]'::json)
         FROM custom_fields f WHERE f.organization_id = ${organizationId}) AS custom_fields,
        (SELECT COALESCE(json_agg(c), '[]'::json) FROM (${contactRowsOf(organizationId, emails)}) AS c) AS contacts,
        (SELECT COALESCE(json_agg(json_build_object('email', s.email, 'reason', s.reason)), '[]'::json)
         FROM suppressions s
         WHERE s.organization_id = ${organizationId} AND s.email = ANY(${emails}::text[])) AS suppressions`;
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
    const [row] = await this.prisma.$queryRaw<ContactRow[]>`${contactRowsOf(organizationId, [email])}`;
    return row ? toStoredContact(row) : undefined;
  }

  /**
   * Every write of a request in ONE statement: new contacts, updated contacts (the whole merged
   * row, updated_at bumped) and added memberships (never removed; an existing one stays as it is).
   * Returns how many contacts were inserted. ON CONFLICT is a safety net: the unique index is the
   * authority, so a row someone else inserted meanwhile is reported (by the count) instead of
   * failing the statement, and the memberships of a contact that was not inserted are left out.
   */
  async writeChanges(
    tx: DatabaseClient,
    organizationId: string,
    changes: { creates: ContactRowWrite[]; updates: ContactRowWrite[]; memberships: MembershipWrite[] },
  ): Promise<number> {
    const created = columnsOf(changes.creates);
    const updated = columnsOf(changes.updates);
    const memberships = changes.memberships;
    const [row] = await tx.$queryRaw<Array<{ inserted: number }>>`
      WITH inserted AS (
        INSERT INTO contacts (id, organization_id, email, first_name, last_name, phone, company, job_title, city,
                              country, custom_fields, created_at, updated_at)
        SELECT r.id, ${organizationId}, r.email, r.first_name, r.last_name, r.phone, r.company, r.job_title, r.city,
               r.country, r.custom_fields::jsonb, now(), now()
        FROM unnest(${created.ids}::text[], ${created.emails}::text[], ${created.firstName}::text[],
                    ${created.lastName}::text[], ${created.phone}::text[], ${created.company}::text[],
                    ${created.jobTitle}::text[], ${created.city}::text[], ${created.country}::text[],
                    ${created.custom}::text[])
             AS r(id, email, first_name, last_name, phone, company, job_title, city, country, custom_fields)
        ON CONFLICT (organization_id, email) DO NOTHING
        RETURNING id
      ), updated AS (
        UPDATE contacts AS c
        SET first_name = r.first_name, last_name = r.last_name, phone = r.phone, company = r.company,
            job_title = r.job_title, city = r.city, country = r.country, custom_fields = r.custom_fields::jsonb,
            updated_at = now()
        FROM unnest(${updated.ids}::text[], ${updated.firstName}::text[], ${updated.lastName}::text[],
                    ${updated.phone}::text[], ${updated.company}::text[], ${updated.jobTitle}::text[],
                    ${updated.city}::text[], ${updated.country}::text[], ${updated.custom}::text[])
             AS r(id, first_name, last_name, phone, company, job_title, city, country, custom_fields)
        WHERE c.id = r.id AND c.organization_id = ${organizationId}
        RETURNING c.id
      ), added_memberships AS (
        INSERT INTO list_memberships (contact_id, list_id)
        SELECT m.contact_id, m.list_id
        FROM unnest(${memberships.map((m) => m.contactId)}::text[], ${memberships.map((m) => m.listId)}::text[],
                    ${memberships.map((m) => m.newContact)}::boolean[])
             AS m(contact_id, list_id, new_contact)
        WHERE NOT m.new_contact OR m.contact_id IN (SELECT id FROM inserted)
        ON CONFLICT DO NOTHING
      )
      SELECT (SELECT count(*)::int FROM inserted) AS inserted`;
    return row.inserted;
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

/** The contacts of the organization with these (normalized) emails, with list ids and suppression. */
function contactRowsOf(organizationId: string, emails: string[]): Prisma.Sql {
  return Prisma.sql`
    SELECT c.id, c.email, c.first_name, c.last_name, c.phone, c.company, c.job_title, c.city, c.country,
           c.custom_fields, c.created_at, c.updated_at,
           COALESCE(
             array_agg(m.list_id ORDER BY m.created_at, m.list_id) FILTER (WHERE m.list_id IS NOT NULL),
             '{}'
           ) AS list_ids,
           (SELECT s.reason::text FROM suppressions s
             WHERE s.organization_id = c.organization_id AND s.email = c.email) AS suppression_reason
    FROM contacts c
    LEFT JOIN list_memberships m ON m.contact_id = c.id
    WHERE c.organization_id = ${organizationId} AND c.email = ANY(${emails}::text[])
    GROUP BY c.id`;
}

/** json columns arrive parsed or as text, depending on the driver path. */
function parsedJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function columnsOf(rows: ContactRowWrite[]) {
  const standard = (key: (typeof STANDARD_FIELD_KEYS)[number]) => rows.map((row) => row.standard[key]);
  return {
    ids: rows.map((row) => row.id),
    emails: rows.map((row) => row.email),
    firstName: standard('firstName'),
    lastName: standard('lastName'),
    phone: standard('phone'),
    company: standard('company'),
    jobTitle: standard('jobTitle'),
    city: standard('city'),
    country: standard('country'),
    // Object.fromEntries defines own properties, so a key like "constructor" stays plain data.
    custom: rows.map((row) => JSON.stringify(Object.fromEntries(row.custom))),
  };
}

function toStoredContact(row: ContactRow): StoredContact {
  const stored = (typeof row.custom_fields === 'string' ? JSON.parse(row.custom_fields) : row.custom_fields) as
    | Record<string, unknown>
    | null;
  return {
    id: row.id,
    email: row.email,
    standard: {
      firstName: row.first_name,
      lastName: row.last_name,
      phone: row.phone,
      company: row.company,
      jobTitle: row.job_title,
      city: row.city,
      country: row.country,
    },
    // Only keys with a value are kept; a stray JSON null is "no value".
    custom: new Map(Object.entries(stored ?? {}).filter(([, value]) => value !== null)),
    listIds: new Set(row.list_ids),
    suppressionReason: row.suppression_reason,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
