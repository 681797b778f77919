import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_SCOPE, isScope, type Scope, SCOPES } from '../auth/scope-names';
import { SUPPRESSION_REASONS, type SuppressionReason } from '../contacts/contact-rules';
import { isValidEmail, normalizeEmail } from '../contacts/email';
import { checkNewField, type FieldInputNames } from '../custom-fields/field-checks';
import type { CustomFieldTypeName } from '../custom-fields/field-definitions';
import { INSTANT_RANGE_TEXT, instantFloor, readInstant } from '../common/instant';
import { listNameProblem } from '../lists/list-name';

/**
 * The administration commands' words and options (docs/api.md#running-and-administration), checked
 * without a database: `parseAdminCommand` turns argv into an AdminCommand, `helpFor` answers --help.
 * What a command does is admin.commands.ts (`executeAdminCommand`). Kept free of NestJS, Prisma
 * Client and pg, so that help and bad arguments are answered without loading them.
 */

/** A bad argument: the CLI prints the message on one line of stderr and exits non-zero. */
export class AdminArgumentError extends Error {}

export { SUPPRESSION_REASONS };
type SuppressionReasonName = SuppressionReason;

export type AdminCommand =
  | { command: 'org create'; name: string }
  | { command: 'key create'; org: string; expiresAt: Date | null; scope: Scope }
  | { command: 'key revoke'; id: string }
  | { command: 'list create'; org: string; name: string }
  | { command: 'list archive'; id: string }
  | {
      command: 'field create';
      org: string;
      key: string;
      type: CustomFieldTypeName;
      required: boolean;
      defaultValue: unknown;
      options: string[];
    }
  | { command: 'suppress'; org: string; email: string; reason: SuppressionReasonName }
  | { command: 'unsuppress'; org: string; email: string }
  | { command: 'contact erase'; org: string; email: string }
  | { command: 'export'; org: string; file: string }
  | { command: 'import'; org: string; file: string; format: ImportFileFormat; gzip: boolean }
  | { command: 'org list' }
  | { command: 'key list'; org: string }
  | { command: 'list list'; org: string }
  | { command: 'field list'; org: string }
  | { command: 'migrate' };

/** What `--help` prints; the first line of each is also the tool's command summary. */
export const COMMAND_HELP: Record<AdminCommand['command'], string> = {
  'org create': 'org create --name <name>\n  Creates an organization. Prints { "id" }.',
  'org list': 'org list\n  Lists the organizations, oldest first. Prints { "organizations": [{ "id", "name", "createdAt" }] }.',
  'key create':
    'key create --org <orgId> [--expires-at <ISO time>] [--scope contacts:read|contacts:write|admin]\n  Creates an API key. Prints { "id", "key" }: the only time the key is shown (only its hash is stored).\n  --expires-at: a date (2030-01-31, midnight UTC) or a date and time; without an offset it is UTC.\n  --scope: what the key may do (default contacts:write); admin implies contacts:write, which implies contacts:read.',
  'key list':
    'key list --org <orgId>\n  Lists the organization\'s API keys, oldest first. Prints { "keys": [{ "id", "prefix", "scope", "createdAt", "lastUsedAt", "expiresAt", "revokedAt" }] }.\n  Never shows a key or its hash; "prefix" is the start of the key, to tell keys apart.',
  'key revoke': 'key revoke --id <keyId>\n  Revokes a key at once. Prints { "id", "revokedAt" } (the first revocation time if already revoked).',
  'list create': 'list create --org <orgId> --name <name>\n  Creates a list. Prints { "id" }.',
  'list list': 'list list --org <orgId>\n  Lists the organization\'s lists, archived ones included. Prints { "lists": [{ "id", "name", "archived", "createdAt" }] }.',
  'list archive': 'list archive --id <listId>\n  Archives a list (contacts can no longer be added to it). Prints { "id", "archived": true }.',
  'field create':
    'field create --org <orgId> --key <key> --type <text|number|boolean|date|select> [--required] [--default <JSON>] [--options <a,b,c>]\n  Defines a custom field. Prints { "id" }. --options is for select fields only; --default is JSON\n  (\'"text"\', 42, true; a negative number as --default=-5).',
  'field list':
    'field list --org <orgId>\n  Lists the organization\'s custom fields, oldest first. Prints { "fields": [{ "id", "key", "type", "required", "defaultValue", "options", "createdAt" }] }.',
  suppress:
    'suppress --org <orgId> --email <email> --reason <bounced|complained|unsubscribed>\n  Suppresses an email (contacts with it are refused). Prints { "email", "reason" }.',
  unsuppress:
    'unsuppress --org <orgId> --email <email>\n  Lifts the suppression of an email, whatever its reason (also complained, which the API refuses to lift), and\n  also an erased (hashed) one. Prints { "email", "status": "unsuppressed", "reason" }.',
  'contact erase':
    'contact erase --org <orgId> --email <email>\n  Erases an address (right to erasure), as POST /api/v2/contacts/{email}/erase does: the contact, its memberships,\n  the suppression\'s plaintext (kept as a keyed hash), every stored answer holding it and the address in\n  every change event (redacted; contact.erased is written). Prints\n  { "email", "status": "erased", "contactDeleted", "suppressionKept", "storedAnswersErased", "eventsRedacted", "importRowsErased" }.',
  export:
    'export --org <orgId> --file <path>\n  Writes the organization\'s contacts to the file as GET /api/v2/contacts/export does (NDJSON, one snapshot, streamed).\n  Prints { "rows", "feedCursor", "file" }: feedCursor is the GET /api/v2/events cursor at the snapshot.',
  import:
    'import --org <orgId> --file <path> [--format csv|ndjson]\n  Imports the file as POST /api/v2/imports does (every row as one entry of a batch, results kept), processing it here\n  unless IMPORT_PROCESSING=false (then the service\'s instances do), and waits for its end; a progress bar on a terminal.\n  Format from the name (.csv, .ndjson, .jsonl, each optionally .gz: gzip) unless --format says. Prints the import\n  as GET /api/v2/imports/{id} shows it; exit 1 unless it completed. Interrupted, the import is left to the service\'s\n  instances once its lease (IMPORT_LEASE_SECONDS) ends.',
  migrate:
    'migrate\n  Applies pending database migrations to DATABASE_URL (for deployments that run with MIGRATE_ON_START=false).\n  Prints { "applied": [names] } (empty when nothing was pending).',
};

export const TOOL_HELP = [
  'Usage: npm run --silent admin -- <command> [options]',
  '',
  'Acts on DATABASE_URL, or on the embedded database when it is unset (started here if the service is not running).',
  'Prints one JSON object on stdout. Errors: one line on stderr, "<command>: <what is wrong>".',
  'Exit codes: 0 done, 2 bad argument, 1 any other failure.',
  '',
  'Commands:',
  ...Object.values(COMMAND_HELP).map((help) => `  ${help.split('\n')[0]}`),
  '',
  'npm run --silent admin -- <command> --help   explains one command.',
].join('\n');

/** `--help`, `-h` or `help` anywhere: the help text to print instead of running anything. */
export function helpFor(argv: string[]): string | undefined {
  const asked = argv.length === 0 || argv.some((a) => a === '--help' || a === '-h') || argv[0] === 'help';
  if (!asked) return undefined;
  const words = argv.filter((a) => !a.startsWith('-') && a !== 'help');
  for (const length of [2, 1]) {
    const name = words.slice(0, length).join(' ');
    if (name in COMMAND_HELP) return `Usage: npm run --silent admin -- ${COMMAND_HELP[name as AdminCommand['command']]}`;
  }
  return TOOL_HELP;
}

type Options = NonNullable<ParseArgsConfig['options']>;
const text = { type: 'string' } as const;

/** Options of each command; `required` names those that must be given. */
const COMMANDS: Record<AdminCommand['command'], { options: Options; required: string[] }> = {
  'org create': { options: { name: text }, required: ['name'] },
  'key create': { options: { org: text, 'expires-at': text, scope: text }, required: ['org'] },
  'key revoke': { options: { id: text }, required: ['id'] },
  'list create': { options: { org: text, name: text }, required: ['org', 'name'] },
  'list archive': { options: { id: text }, required: ['id'] },
  'field create': {
    options: { org: text, key: text, type: text, required: { type: 'boolean' }, default: text, options: text },
    required: ['org', 'key', 'type'],
  },
  suppress: { options: { org: text, email: text, reason: text }, required: ['org', 'email', 'reason'] },
  unsuppress: { options: { org: text, email: text }, required: ['org', 'email'] },
  'contact erase': { options: { org: text, email: text }, required: ['org', 'email'] },
  export: { options: { org: text, file: text }, required: ['org', 'file'] },
  import: { options: { org: text, file: text, format: text }, required: ['org', 'file'] },
  'org list': { options: {}, required: [] },
  'key list': { options: { org: text }, required: ['org'] },
  'list list': { options: { org: text }, required: ['org'] },
  'field list': { options: { org: text }, required: ['org'] },
  migrate: { options: {}, required: [] },
};

/** The command named by argv's first words (for error prefixes), or "admin" when there is none. */
export function commandNameOf(argv: string[]): string {
  for (const length of [2, 1]) {
    const name = argv.slice(0, length).join(' ');
    if (name in COMMANDS) return name;
  }
  return 'admin';
}

export const USAGE = `commands: ${Object.keys(COMMANDS).join(', ')}`;

/** Parses `argv` (the words after `admin --`) strictly: unknown commands and options are errors. */
export function parseAdminCommand(argv: string[]): AdminCommand {
  // `suppress`, `unsuppress`, `export`, `import` and `migrate` are one word; every other command is two.
  const words = ['suppress', 'unsuppress', 'export', 'import', 'migrate'].includes(argv[0]) ? 1 : 2;
  const name = argv.slice(0, words).join(' ');
  if (argv.length < words || argv.slice(0, words).some((w) => w.startsWith('-')) || !(name in COMMANDS)) {
    throw new AdminArgumentError(`admin: unknown command "${argv.slice(0, 2).join(' ')}"; ${USAGE} (--help explains them)`);
  }
  const spec = COMMANDS[name as AdminCommand['command']];
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({ args: argv.slice(words), options: spec.options, strict: true, allowPositionals: false });
    values = parsed.values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new AdminArgumentError(`${name}: ${oneLine((error as Error).message)}`);
  }
  for (const option of spec.required) {
    if (values[option] === undefined) throw new AdminArgumentError(`${name}: missing option --${option}`);
  }
  const str = (option: string): string => {
    const value = String(values[option]).trim();
    if (!value) throw new AdminArgumentError(`${name}: --${option} must not be empty`);
    return value;
  };

  switch (name as AdminCommand['command']) {
    case 'org create':
      return { command: 'org create', name: str('name') };
    case 'key create':
      return {
        command: 'key create',
        org: str('org'),
        expiresAt: values['expires-at'] === undefined ? null : parseIsoTime(str('expires-at')),
        scope: parseScope(values.scope),
      };
    case 'key revoke':
      return { command: 'key revoke', id: str('id') };
    case 'list create': {
      const listName = str('name');
      // The API's rule for list names (list-name.ts), so both make the same lists.
      const problem = listNameProblem(listName, '--name');
      if (problem) throw new AdminArgumentError(`list create: ${problem}`);
      return { command: 'list create', org: str('org'), name: listName };
    }
    case 'list archive':
      return { command: 'list archive', id: str('id') };
    case 'field create':
      return parseFieldCreate(values, str);
    case 'org list':
      return { command: 'org list' };
    case 'key list':
    case 'list list':
    case 'field list':
      return { command: name as 'key list' | 'list list' | 'field list', org: str('org') };
    case 'migrate':
      return { command: 'migrate' };
    case 'unsuppress':
      return { command: 'unsuppress', org: str('org'), email: normalizeEmail(str('email')) };
    case 'export':
      return { command: 'export', org: str('org'), file: str('file') };
    case 'import': {
      const file = str('file');
      return { command: 'import', org: str('org'), file, ...importFileFormat(file, values.format === undefined ? undefined : str('format')) };
    }
    case 'contact erase':
      // Any value: erasure removes the address wherever it was stored, valid or not.
      return { command: 'contact erase', org: str('org'), email: normalizeEmail(str('email')) };
    case 'suppress': {
      const email = normalizeEmail(String(values.email));
      if (!isValidEmail(email)) throw new AdminArgumentError(`suppress: invalid --email ${JSON.stringify(values.email)}`);
      const reason = String(values.reason);
      if (!(SUPPRESSION_REASONS as readonly string[]).includes(reason)) {
        throw new AdminArgumentError(`suppress: --reason must be one of ${SUPPRESSION_REASONS.join(', ')}`);
      }
      return { command: 'suppress', org: str('org'), email, reason: reason as SuppressionReasonName };
    }
  }
}

function parseFieldCreate(
  values: Record<string, string | boolean | undefined>,
  str: (option: string) => string,
): AdminCommand {
  // Only the command line's own syntax is read here (comma-separated options, JSON default); what
  // makes a field definition valid is checked by checkNewField, which the API uses too.
  let options: string[] | undefined;
  if (values.options !== undefined) options = String(values.options).split(',').map((o) => o.trim());
  let defaultValue: unknown;
  if (values.default !== undefined) {
    try {
      defaultValue = JSON.parse(String(values.default));
    } catch {
      throw new AdminArgumentError('field create: --default must be JSON (e.g. \'"text"\', 42, true)');
    }
    // null would mean "no default": leave --default out instead of sending something that fits nothing.
    if (defaultValue === null) throw new AdminArgumentError('field create: --default null does not fit any field: leave --default out');
  }
  const checked = checkNewField(
    { key: String(values.key), type: String(values.type), required: values.required === true, defaultValue, options },
    ADMIN_FIELD_NAMES,
  );
  if (!checked.ok) throw new AdminArgumentError(`field create: ${checked.message}`);
  return { command: 'field create', org: str('org'), ...checked.value };
}

export type ImportFileFormat = 'ndjson' | 'csv';

/**
 * `import`'s format and encoding: `--format` when given, else the file name's extension (.csv;
 * .ndjson or .jsonl), after a `.gz` that says the file is gzip.
 */
export function importFileFormat(file: string, format: string | undefined): { format: ImportFileFormat; gzip: boolean } {
  const gzip = /\.gz$/i.test(file);
  if (format !== undefined) {
    if (format !== 'csv' && format !== 'ndjson') throw new AdminArgumentError(`import: --format must be csv or ndjson, got ${JSON.stringify(format)}`);
    return { format, gzip };
  }
  const extension = /\.([^./\\]+)$/.exec(file.replace(/\.gz$/i, ''))?.[1]?.toLowerCase();
  if (extension === 'csv') return { format: 'csv', gzip };
  if (extension === 'ndjson' || extension === 'jsonl') return { format: 'ndjson', gzip };
  throw new AdminArgumentError(
    `import: cannot tell the format of ${JSON.stringify(file)} from its name (.csv, .ndjson or .jsonl, optionally .gz): give --format csv or --format ndjson`,
  );
}

/** How `field create` names its inputs in messages. */
const ADMIN_FIELD_NAMES: FieldInputNames = {
  key: '--key',
  type: '--type',
  required: '--required',
  defaultValue: '--default',
  options: '--options',
};

/** `--scope` of `key create`: absent means contacts:write, what every key had before scopes existed. */
function parseScope(value: string | boolean | undefined): Scope {
  if (value === undefined) return DEFAULT_SCOPE;
  const scope = String(value).trim();
  if (!isScope(scope)) throw new AdminArgumentError(`key create: --scope must be one of ${SCOPES.join(', ')}`);
  return scope;
}

/**
 * An ISO 8601 date (`YYYY-MM-DD`, midnight UTC) or date and time (`YYYY-MM-DDThh:mm:ssZ`, with
 * `Z` or an offset; without one it is read as UTC, never as the machine's local time), read by the
 * one instant reader (common/instant.ts); a finer instant is rounded down to the millisecond.
 */
export function parseIsoTime(value: string): Date {
  const candidates = /[Tt]/.test(value) ? [value, `${value}Z`] : [`${value}T00Z`];
  const readings = candidates.map(readInstant);
  const reading = readings.find((r) => r.ok) ?? readings.find((r) => !r.ok && r.problem === 'range') ?? readings[0];
  if (reading.ok) return instantFloor(reading);
  if (reading.problem === 'range') throw new AdminArgumentError(`key create: --expires-at must be from ${INSTANT_RANGE_TEXT}, got "${value}"`);
  throw new AdminArgumentError(`key create: --expires-at must be an ISO 8601 time (e.g. 2030-01-31T12:00:00Z), got "${value}"`);
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
