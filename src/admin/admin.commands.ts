import { parseArgs, type ParseArgsConfig } from 'node:util';
import { generateApiKey } from '../auth/api-key';
import { SUPPRESSION_REASONS, type SuppressionReason } from '../contacts/contact-rules';
import { isValidEmail, normalizeEmail } from '../contacts/email';
import {
  CUSTOM_FIELD_KEY_PATTERN,
  CUSTOM_FIELD_TYPES,
  fitsCustomField,
  isCalendarDate,
  isStandardFieldKey,
  type CustomFieldTypeName,
} from '../custom-fields/field-definitions';
import type { PrismaClient } from '../generated/prisma/client';

/**
 * The administration commands of contract section 9, without the process around them (cli.ts):
 * `parseAdminCommand` checks the words and options (no database), `executeAdminCommand` does the
 * work and checks what needs the database (unknown ids, duplicate field keys).
 */

/** A bad argument: the CLI prints the message on one line of stderr and exits non-zero. */
export class AdminArgumentError extends Error {}

export { SUPPRESSION_REASONS };
type SuppressionReasonName = SuppressionReason;

export type AdminCommand =
  | { command: 'org create'; name: string }
  | { command: 'key create'; org: string; expiresAt: Date | null }
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
  | { command: 'suppress'; org: string; email: string; reason: SuppressionReasonName };

type Options = NonNullable<ParseArgsConfig['options']>;
const text = { type: 'string' } as const;

/** Options of each command; `required` names those that must be given. */
const COMMANDS: Record<AdminCommand['command'], { options: Options; required: string[] }> = {
  'org create': { options: { name: text }, required: ['name'] },
  'key create': { options: { org: text, 'expires-at': text }, required: ['org'] },
  'key revoke': { options: { id: text }, required: ['id'] },
  'list create': { options: { org: text, name: text }, required: ['org', 'name'] },
  'list archive': { options: { id: text }, required: ['id'] },
  'field create': {
    options: { org: text, key: text, type: text, required: { type: 'boolean' }, default: text, options: text },
    required: ['org', 'key', 'type'],
  },
  suppress: { options: { org: text, email: text, reason: text }, required: ['org', 'email', 'reason'] },
};

export const USAGE = `commands: ${Object.keys(COMMANDS).join(', ')}`;

/** Parses `argv` (the words after `admin --`) strictly: unknown commands and options are errors. */
export function parseAdminCommand(argv: string[]): AdminCommand {
  // `suppress` is one word; every other command is two.
  const words = argv[0] === 'suppress' ? 1 : 2;
  const name = argv.slice(0, words).join(' ');
  if (argv.length < words || argv.slice(0, words).some((w) => w.startsWith('-')) || !(name in COMMANDS)) {
    throw new AdminArgumentError(`Unknown command "${argv.slice(0, 2).join(' ')}"; ${USAGE}`);
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
      };
    case 'key revoke':
      return { command: 'key revoke', id: str('id') };
    case 'list create':
      return { command: 'list create', org: str('org'), name: str('name') };
    case 'list archive':
      return { command: 'list archive', id: str('id') };
    case 'field create':
      return parseFieldCreate(values, str);
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
  const key = String(values.key);
  if (!CUSTOM_FIELD_KEY_PATTERN.test(key)) {
    throw new AdminArgumentError(`field create: --key must match ${String(CUSTOM_FIELD_KEY_PATTERN)}`);
  }
  if (isStandardFieldKey(key)) throw new AdminArgumentError(`field create: "${key}" is a standard field`);
  const type = String(values.type);
  if (!(CUSTOM_FIELD_TYPES as readonly string[]).includes(type)) {
    throw new AdminArgumentError(`field create: --type must be one of ${CUSTOM_FIELD_TYPES.join(', ')}`);
  }
  let options: string[] = [];
  if (type === 'select') {
    if (values.options === undefined) throw new AdminArgumentError('field create: a select field needs --options a,b,c');
    options = String(values.options)
      .split(',')
      .map((o) => o.trim());
    if (options.some((o) => o === '')) throw new AdminArgumentError('field create: --options must not hold an empty option');
    if (new Set(options).size !== options.length) throw new AdminArgumentError('field create: --options repeats an option');
  } else if (values.options !== undefined) {
    throw new AdminArgumentError('field create: --options is only for select fields');
  }
  let defaultValue: unknown = null;
  if (values.default !== undefined) {
    try {
      defaultValue = JSON.parse(String(values.default));
    } catch {
      throw new AdminArgumentError('field create: --default must be JSON (e.g. \'"text"\', 42, true)');
    }
    // null would mean "no default": leave --default out instead of sending something that fits nothing.
    if (!fitsCustomField({ type: type as CustomFieldTypeName, options }, defaultValue)) {
      throw new AdminArgumentError(`field create: --default ${String(values.default)} does not fit a ${type} field`);
    }
  }
  return {
    command: 'field create',
    org: str('org'),
    key,
    type: type as CustomFieldTypeName,
    required: values.required === true,
    defaultValue,
    options,
  };
}

/**
 * An ISO 8601 date (`2030-01-31`, midnight UTC) or date and time (`2030-01-31T12:00:00Z`, with
 * `Z` or an offset; without one it is read as UTC, never as the machine's local time).
 */
export function parseIsoTime(value: string): Date {
  const match = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(value);
  const bad = () => new AdminArgumentError(`--expires-at must be an ISO 8601 time (e.g. 2030-01-31T12:00:00Z), got "${value}"`);
  if (!match || !isCalendarDate(match[1])) throw bad();
  const [date, hh = '00', mm = '00', ss = '00', fraction = '', zone = 'Z'] = match.slice(1);
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) throw bad();
  if (zone !== 'Z' && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4)) > 59)) throw bad();
  const parsed = new Date(`${date}T${hh}:${mm}:${ss}${fraction}${zone}`);
  if (Number.isNaN(parsed.getTime())) throw bad();
  return parsed;
}

/** Runs a parsed command; returns the JSON object the CLI prints. */
export async function executeAdminCommand(prisma: PrismaClient, command: AdminCommand): Promise<Record<string, unknown>> {
  switch (command.command) {
    case 'org create': {
      const org = await prisma.organization.create({ data: { name: command.name } });
      return { id: org.id };
    }
    case 'key create': {
      await requireOrganization(prisma, command.org);
      // Only the hash and a short prefix reach the database; the key is printed once.
      const { key, prefix, keyHash } = generateApiKey();
      const row = await prisma.apiKey.create({
        data: { organizationId: command.org, prefix, keyHash, expiresAt: command.expiresAt },
      });
      return { id: row.id, key };
    }
    case 'key revoke': {
      const row = await prisma.apiKey.findUnique({ where: { id: command.id } });
      if (!row) throw new AdminArgumentError(`key revoke: no API key with id "${command.id}"`);
      // Revoking twice keeps the first revocation time.
      const revoked = row.revokedAt
        ? row
        : await prisma.apiKey.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
      return { id: revoked.id, revokedAt: revoked.revokedAt?.toISOString() };
    }
    case 'list create': {
      await requireOrganization(prisma, command.org);
      const list = await prisma.list.create({ data: { organizationId: command.org, name: command.name } });
      return { id: list.id };
    }
    case 'list archive': {
      const { count } = await prisma.list.updateMany({ where: { id: command.id }, data: { archived: true } });
      if (count === 0) throw new AdminArgumentError(`list archive: no list with id "${command.id}"`);
      return { id: command.id, archived: true };
    }
    case 'field create': {
      await requireOrganization(prisma, command.org);
      const data = {
        organizationId: command.org,
        key: command.key,
        type: command.type,
        required: command.required,
        options: command.options,
        ...(command.defaultValue === null ? {} : { defaultValue: command.defaultValue as never }),
      };
      try {
        const field = await prisma.customField.create({ data });
        return { id: field.id };
      } catch (error) {
        // The unique index (organization, key) decides, so two concurrent creates cannot both win.
        if ((error as { code?: string }).code === 'P2002') {
          throw new AdminArgumentError(`field create: the organization already has a field "${command.key}"`);
        }
        throw error;
      }
    }
    case 'suppress': {
      await requireOrganization(prisma, command.org);
      const row = await prisma.suppression.upsert({
        where: { organizationId_email: { organizationId: command.org, email: command.email } },
        create: { organizationId: command.org, email: command.email, reason: command.reason },
        update: { reason: command.reason },
      });
      return { email: row.email, reason: row.reason };
    }
  }
}

async function requireOrganization(prisma: PrismaClient, id: string): Promise<void> {
  const org = await prisma.organization.findUnique({ where: { id }, select: { id: true } });
  if (!org) throw new AdminArgumentError(`no organization with id "${id}"`);
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
