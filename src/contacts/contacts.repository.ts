import { Injectable } from '@nestjs/common';
import { isStorableText } from '../common/storable-text';
import { PrismaService } from '../database/prisma.service';
import type { DatabaseClient } from '../custom-fields/custom-fields.repository';
import { STANDARD_FIELD_KEYS } from '../custom-fields/field-definitions';
import type { CustomValues, ExistingContact, StandardValues, SuppressionReason } from './contact-rules';

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

  /** The ids among `ids` that name a non-archived list of the organization. */
  async findActiveListIds(tx: DatabaseClient, organizationId: string, requested: string[]): Promise<Set<string>> {
    // An id PostgreSQL cannot be sent (U+0000, lone surrogate) names no list anyway.
    const ids = requested.filter(isStorableText);
    const rows = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM lists
      WHERE organization_id = ${organizationId} AND NOT archived AND id = ANY(${ids}::text[])`;
    return new Set(rows.map((row) => row.id));
  }

  async findSuppressions(
    tx: DatabaseClient,
    organizationId: string,
    emails: string[],
  ): Promise<Map<string, SuppressionReason>> {
    const rows = await tx.$queryRaw<Array<{ email: string; reason: SuppressionReason }>>`
      SELECT email, reason::text AS reason FROM suppressions
      WHERE organization_id = ${organizationId} AND email = ANY(${emails}::text[])`;
    return new Map(rows.map((row) => [row.email, row.reason]));
  }

  /** Contacts of the organization with these (normalized) emails, by email. */
  async findByEmails(db: DatabaseClient, organizationId: string, emails: string[]): Promise<Map<string, StoredContact>> {
    const rows = await db.$queryRaw<ContactRow[]>`
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
    return new Map(rows.map((row) => [row.email, toStoredContact(row)]));
  }

  /** One contact by normalized email, outside any transaction (GET /contacts/{email}). */
  async findByEmail(organizationId: string, email: string): Promise<StoredContact | undefined> {
    return (await this.findByEmails(this.prisma, organizationId, [email])).get(email);
  }

  /**
   * Inserts new contacts; returns the emails actually inserted. ON CONFLICT is a safety net: the
   * unique index is the authority, so a row someone else inserted meanwhile is reported (by its
   * absence) instead of failing the statement.
   */
  async insertContacts(tx: DatabaseClient, organizationId: string, rows: ContactRowWrite[]): Promise<Set<string>> {
    const column = columnsOf(rows);
    const inserted = await tx.$queryRaw<Array<{ email: string }>>`
      INSERT INTO contacts (id, organization_id, email, first_name, last_name, phone, company, job_title, city,
                            country, custom_fields, created_at, updated_at)
      SELECT r.id, ${organizationId}, r.email, r.first_name, r.last_name, r.phone, r.company, r.job_title, r.city,
             r.country, r.custom_fields::jsonb, now(), now()
      FROM unnest(${column.ids}::text[], ${column.emails}::text[], ${column.firstName}::text[],
                  ${column.lastName}::text[], ${column.phone}::text[], ${column.company}::text[],
                  ${column.jobTitle}::text[], ${column.city}::text[], ${column.country}::text[],
                  ${column.custom}::text[])
           AS r(id, email, first_name, last_name, phone, company, job_title, city, country, custom_fields)
      ON CONFLICT (organization_id, email) DO NOTHING
      RETURNING email`;
    return new Set(inserted.map((row) => row.email));
  }

  /** Writes the whole merged row of each updated contact, and bumps updated_at. */
  async updateContacts(tx: DatabaseClient, organizationId: string, rows: ContactRowWrite[]): Promise<void> {
    const column = columnsOf(rows);
    await tx.$executeRaw`
      UPDATE contacts AS c
      SET first_name = r.first_name, last_name = r.last_name, phone = r.phone, company = r.company,
          job_title = r.job_title, city = r.city, country = r.country, custom_fields = r.custom_fields::jsonb,
          updated_at = now()
      FROM unnest(${column.ids}::text[], ${column.firstName}::text[], ${column.lastName}::text[],
                  ${column.phone}::text[], ${column.company}::text[], ${column.jobTitle}::text[],
                  ${column.city}::text[], ${column.country}::text[], ${column.custom}::text[])
           AS r(id, first_name, last_name, phone, company, job_title, city, country, custom_fields)
      WHERE c.id = r.id AND c.organization_id = ${organizationId}`;
  }

  /** Adds memberships; one that already exists stays as it is (memberships are never removed). */
  async addMemberships(tx: DatabaseClient, memberships: Array<{ contactId: string; listId: string }>): Promise<void> {
    const contactIds = memberships.map((m) => m.contactId);
    const listIds = memberships.map((m) => m.listId);
    await tx.$executeRaw`
      INSERT INTO list_memberships (contact_id, list_id)
      SELECT * FROM unnest(${contactIds}::text[], ${listIds}::text[])
      ON CONFLICT DO NOTHING`;
  }
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
