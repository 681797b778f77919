import { runIn, type SqlClient } from '../database/statements';
import { CONTACT_VIEWS } from './contact-views.statements';

/** A contact as GET /api/v2/contacts/{email} shows it, as that JSON text: what contact events carry as `data.contact`. */
export interface ContactText {
  id: string;
  /** The JSON text, byte for byte GET's (contactJsonPart): events store it as it is. */
  text: string;
}

/**
 * The contacts of these normalized emails as GET /contacts/{email} would show them, read inside
 * the caller's transaction (CONTACT_VIEWS, one statement, rendered by PostgreSQL as GET's are):
 * after its change for the events that describe the state after it, before it for
 * `contact.deleted`. Keyed by email; emails without a contact are absent.
 */
export async function readContactTexts(tx: SqlClient, organizationId: string, emails: readonly string[]): Promise<Map<string, ContactText>> {
  if (emails.length === 0) return new Map();
  const rows = await runIn(tx, CONTACT_VIEWS, [organizationId, [...emails]]);
  return new Map(rows.map((row) => [row.email, { id: row.id, text: row.contact }]));
}
