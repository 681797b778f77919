import { runIn, type SqlClient } from '../database/statements';
import type { EventContact } from '../events/event-types';
import { CONTACT_VIEWS } from './contact-views.statements';

/** A contact as GET /api/v2/contacts/{email} shows it: what contact events carry as `data.contact`. */
export type ContactView = EventContact;

/**
 * The contacts of these normalized emails as GET /contacts/{email} would show them, read inside
 * the caller's transaction (CONTACT_VIEWS, one statement, rendered by PostgreSQL as GET's are):
 * after its change for the events that describe the state after it, before it for
 * `contact.deleted`. Keyed by email; emails without a contact are absent.
 */
export async function readContactViews(tx: SqlClient, organizationId: string, emails: readonly string[]): Promise<Map<string, ContactView>> {
  if (emails.length === 0) return new Map();
  const rows = await runIn(tx, CONTACT_VIEWS, [organizationId, [...emails]]);
  return new Map(rows.map((row) => [row.email, JSON.parse(row.contact) as ContactView]));
}
