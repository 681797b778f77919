import { isValidEmail, normalizeEmail } from './email';

describe('normalizeEmail', () => {
  it('trims and lowercases', () => {
    expect(normalizeEmail('  Ada@Example.COM \n')).toBe('ada@example.com');
  });
});

describe('isValidEmail', () => {
  it.each([
    'ada@example.com',
    "o'brien+tag@mail.example.co.uk",
    'a.b-c_d@x-y.io',
    `${'a'.repeat(64)}@example.com`,
  ])('accepts %s', (email) => expect(isValidEmail(email)).toBe(true));

  it.each([
    ['no at sign', 'ada.example.com'],
    ['no dot in the domain', 'ada@localhost'],
    ['two at signs', 'a@b@example.com'],
    ['empty local part', '@example.com'],
    ['a space inside', 'ada lovelace@example.com'],
    ['non-ASCII local part', 'adä@example.com'],
    ['non-ASCII domain', 'ada@exämple.com'],
    ['a label starting with a hyphen', 'ada@-example.com'],
    ['an empty label', 'ada@example..com'],
    ['a label of 64 characters', `ada@${'a'.repeat(64)}.com`],
    ['a local part of 65 characters', `${'a'.repeat(65)}@example.com`],
    ['more than 254 characters', `ada@${'a'.repeat(62)}.${'b'.repeat(62)}.${'c'.repeat(62)}.${'d'.repeat(62)}.com`],
    ['an empty string', ''],
  ])('refuses %s', (_why, email) => expect(isValidEmail(email)).toBe(false));
});
