import { DomainError, invalidRequest } from '../errors/domain-error';
import { RequestErrorCode } from '../errors/error-codes';

/** Contract section 7: at most 50 contacts per batch. */
export const BATCH_LIMIT = 50;

/**
 * One contact input after the shape check (contract section 4). `email` is still unchecked (it
 * is rule 1, a per-contact failure, not a shape error). `fields` is a Map so that a key named
 * `__proto__` or `constructor` stays an ordinary key and never touches a prototype.
 */
export interface ContactInput {
  email: unknown;
  listIds: string[] | undefined;
  fields: ReadonlyMap<string, unknown>;
  overwrite: boolean;
}

const CONTACT_KEYS: ReadonlySet<string> = new Set(['email', 'listIds', 'fields', 'overwrite']);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const has = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

/** Body of POST /api/v2/contacts: one contact object. */
export function parseSingleContactBody(body: unknown): ContactInput {
  if (!isPlainObject(body)) throw invalidRequest('Request body must be a JSON object (one contact)');
  return parseContact(body, '');
}

/**
 * Body of POST /api/v2/contacts/batch: `{ "contacts": [ ... ] }`, 1 to 50 entries. The count is
 * checked before anything about the entries, so an oversized batch is BATCH_LIMIT_EXCEEDED
 * whatever its entries hold.
 */
export function parseBatchBody(body: unknown): ContactInput[] {
  if (!isPlainObject(body)) throw invalidRequest('Request body must be a JSON object: { "contacts": [ ... ] }');
  const unknownKeys = Object.keys(body).filter((key) => key !== 'contacts');
  if (unknownKeys.length > 0) throw invalidRequest(`Unknown key in request body: ${quoteAll(unknownKeys)}`);
  if (!has(body, 'contacts')) throw invalidRequest('contacts is required');
  const contacts = body.contacts;
  if (!Array.isArray(contacts)) throw invalidRequest('contacts must be an array of contact objects');
  if (contacts.length === 0) throw invalidRequest('contacts must not be empty');
  if (contacts.length > BATCH_LIMIT) {
    throw new DomainError(
      RequestErrorCode.BATCH_LIMIT_EXCEEDED,
      `A batch holds at most ${BATCH_LIMIT} contacts; ${contacts.length} were sent`,
    );
  }
  return contacts.map((contact: unknown, index) => {
    const path = `contacts[${index}]`;
    if (!isPlainObject(contact)) throw invalidRequest(`${path} must be an object`);
    return parseContact(contact, `${path}.`);
  });
}

/** `prefix` is '' for the single endpoint and `contacts[3].` in a batch, so messages name the path. */
function parseContact(contact: Record<string, unknown>, prefix: string): ContactInput {
  const unknownKeys = Object.keys(contact).filter((key) => !CONTACT_KEYS.has(key));
  if (unknownKeys.length > 0) {
    const where = prefix === '' ? 'contact' : prefix.slice(0, -1);
    throw invalidRequest(`Unknown key in ${where}: ${quoteAll(unknownKeys)}`);
  }

  // `null` counts as present: it is a shape error, not "absent" (contract section 12).
  let listIds: string[] | undefined;
  if (has(contact, 'listIds')) {
    const value = contact.listIds;
    if (!Array.isArray(value) || !value.every((id) => typeof id === 'string')) {
      throw invalidRequest(`${prefix}listIds must be an array of strings`);
    }
    listIds = value;
  }

  const fields = new Map<string, unknown>();
  if (has(contact, 'fields')) {
    const value = contact.fields;
    if (!isPlainObject(value)) throw invalidRequest(`${prefix}fields must be an object`);
    for (const key of Object.keys(value)) fields.set(key, value[key]);
  }

  let overwrite = false;
  if (has(contact, 'overwrite')) {
    if (typeof contact.overwrite !== 'boolean') throw invalidRequest(`${prefix}overwrite must be a boolean`);
    overwrite = contact.overwrite;
  }

  return { email: has(contact, 'email') ? contact.email : undefined, listIds, fields, overwrite };
}

/** `?dryRun=true|false`; absent is false, anything else is a request error. */
export function parseDryRun(value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalidRequest('dryRun must be true or false');
}

function quoteAll(keys: string[]): string {
  return keys.map((key) => JSON.stringify(key)).join(', ');
}
