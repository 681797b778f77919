import { AdminArgumentError, parseAdminCommand, parseIsoTime } from './admin-arguments';

// The argument rules of the admin commands (docs/api.md#running-and-administration), in-process (test/admin runs the real CLI).
describe('parseAdminCommand', () => {
  const ORG = 'org-1';
  const refused = (args: string[]) => {
    try {
      parseAdminCommand(args);
    } catch (error) {
      expect(error).toBeInstanceOf(AdminArgumentError);
      const message = (error as Error).message;
      expect(message).not.toContain('\n'); // printed as one line of stderr
      return message;
    }
    throw new Error(`accepted: ${args.join(' ')}`);
  };

  it('parses every command with its options', () => {
    expect(parseAdminCommand(['org', 'create', '--name', ' Acme '])).toEqual({ command: 'org create', name: 'Acme' });
    // Without --scope: contacts:write, what every key had before scopes existed.
    expect(parseAdminCommand(['key', 'create', '--org', ORG])).toEqual({ command: 'key create', org: ORG, expiresAt: null, scope: 'contacts:write' });
    expect(parseAdminCommand(['key', 'create', '--org', ORG, '--expires-at', '2020-01-01T00:00:00Z', '--scope', 'admin'])).toEqual({
      command: 'key create',
      org: ORG,
      expiresAt: new Date('2020-01-01T00:00:00Z'),
      scope: 'admin',
    });
    expect(parseAdminCommand(['key', 'create', '--org', ORG, '--scope=contacts:read'])).toMatchObject({ scope: 'contacts:read' });
    expect(parseAdminCommand(['key', 'revoke', '--id', 'k'])).toEqual({ command: 'key revoke', id: 'k' });
    expect(parseAdminCommand(['list', 'create', '--org', ORG, '--name', 'News'])).toEqual({
      command: 'list create',
      org: ORG,
      name: 'News',
    });
    expect(parseAdminCommand(['list', 'archive', '--id', 'l'])).toEqual({ command: 'list archive', id: 'l' });
    expect(parseAdminCommand(['field', 'create', '--org', ORG, '--key', 'plan', '--type', 'select', '--options', 'a, b', '--default', '"b"', '--required'])).toEqual({
      command: 'field create',
      org: ORG,
      key: 'plan',
      type: 'select',
      required: true,
      defaultValue: 'b',
      options: ['a', 'b'],
    });
    expect(parseAdminCommand(['suppress', '--org', ORG, '--email', ' Ada@Example.com', '--reason', 'unsubscribed'])).toEqual({
      command: 'suppress',
      org: ORG,
      email: 'ada@example.com',
      reason: 'unsubscribed',
    });
  });

  it('accepts --option=value and a negative default written that way', () => {
    expect(parseAdminCommand(['field', 'create', `--org=${ORG}`, '--key=score', '--type=number', '--default=-2'])).toMatchObject({
      defaultValue: -2,
      required: false,
      options: [],
    });
  });

  it.each<[string, string[], RegExp]>([
    ['no command', [], /unknown command/i],
    ['unknown command', ['org', 'delete'], /unknown command/i],
    ['half a command', ['key'], /unknown command/i],
    ['an option in place of a command word', ['org', '--name', 'x'], /unknown command/i],
    ['unknown option', ['org', 'create', '--name', 'x', '--color', 'red'], /--color/],
    ['option of another command', ['key', 'create', '--org', ORG, '--name', 'x'], /--name/],
    ['missing option', ['org', 'create'], /missing option --name/],
    ['missing option value', ['list', 'create', '--org', ORG, '--name'], /--name/],
    ['empty value', ['org', 'create', '--name', '  '], /--name must not be empty/],
    ['stray positional', ['org', 'create', 'extra', '--name', 'x'], /extra/],
    ['bad --expires-at', ['key', 'create', '--org', ORG, '--expires-at', 'tomorrow'], /expires-at/],
    ['unknown --scope', ['key', 'create', '--org', ORG, '--scope', 'contacts:delete'], /--scope must be one of contacts:read, contacts:write, admin/],
    ['--scope in another letter case', ['key', 'create', '--org', ORG, '--scope', 'Admin'], /--scope/],
    ['list name over 255 characters', ['list', 'create', '--org', ORG, '--name', 'x'.repeat(256)], /--name must be 1 to 255/],
    ['bad --reason', ['suppress', '--org', ORG, '--email', 'a@b.co', '--reason', 'spam'], /reason/],
    ['invalid email', ['suppress', '--org', ORG, '--email', 'not-an-email', '--reason', 'bounced'], /email/],
    ['email without a dot in its domain', ['suppress', '--org', ORG, '--email', 'a@localhost', '--reason', 'bounced'], /email/],
    ['bad field key', ['field', 'create', '--org', ORG, '--key', '1abc', '--type', 'text'], /--key/],
    ['field key too long', ['field', 'create', '--org', ORG, '--key', `a${'b'.repeat(64)}`, '--type', 'text'], /--key/],
    ['standard field name', ['field', 'create', '--org', ORG, '--key', 'firstName', '--type', 'text'], /standard/],
    ['bad field type', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'string'], /--type/],
    ['--options on a non-select', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'text', '--options', 'a'], /options/],
    ['select without --options', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'select'], /options/],
    ['empty select option', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'select', '--options', 'a,,b'], /empty/],
    ['repeated select option', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'select', '--options', 'a,a'], /repeats/],
    ['--default not JSON', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'text', '--default', 'hello'], /JSON/],
    ['--default null', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'text', '--default', 'null'], /does not fit/],
    ['--default numeric string for a number', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'number', '--default', '"42"'], /does not fit/],
    ['--default not an option', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'select', '--options', 'a,b', '--default', '"c"'], /does not fit/],
    ['--default not a real date', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'date', '--default', '"2023-02-29"'], /does not fit/],
    ['--default too long a text', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'text', '--default', JSON.stringify('x'.repeat(2001))], /does not fit/],
    ['--required with a value', ['field', 'create', '--org', ORG, '--key', 'x', '--type', 'text', '--required=yes'], /required/],
  ])('refuses %s', (_name, args, message) => {
    expect(refused(args)).toMatch(message);
  });
});

describe('parseIsoTime (--expires-at)', () => {
  it.each([
    ['2030-01-31', '2030-01-31T00:00:00.000Z'],
    ['2030-01-31T12:30', '2030-01-31T12:30:00.000Z'],
    ['2030-01-31T12:30:15Z', '2030-01-31T12:30:15.000Z'],
    ['2030-01-31T12:30:15.250Z', '2030-01-31T12:30:15.250Z'],
    ['2030-01-31T12:30:15+02:00', '2030-01-31T10:30:15.000Z'],
    ['2020-01-01T00:00:00Z', '2020-01-01T00:00:00.000Z'], // past times are accepted
    ['2030-01-31T24:00:00Z', '2030-02-01T00:00:00.000Z'], // ISO 8601's end of the day
    ['2030-W05-4T12:00', '2030-01-31T12:00:00.000Z'],
    ['2030-01-31T12:30:15.2509Z', '2030-01-31T12:30:15.250Z'], // rounded down: never later than asked
  ])('reads %s as %s (no zone means UTC)', (input, expected) => {
    expect(parseIsoTime(input).toISOString()).toBe(expected);
  });

  it.each(['tomorrow', '1', '2030-02-30', '2030-01-31T24:00:01Z', '+010000-01-01', '9999-12-31T23:59:59.9995Z', '2030-01-31T12:60Z', '2030-01-31 12:00:00Z', '2030-01-31T12:00:00+25:00', '31/01/2030'])(
    'refuses %s',
    (input) => {
      expect(() => parseIsoTime(input)).toThrow(AdminArgumentError);
    },
  );
});
