import type { CustomFieldDefinition } from '../custom-fields/field-definitions';
import type { ContactInput } from './contact-input.shape';
import {
  type ContactFailure,
  type ExistingContact,
  type PlannedChange,
  type RuleContext,
  type SuppressionReason,
  emptyStandardValues,
  planContact,
  screenContacts,
} from './contact-rules';

const input = (
  email: unknown,
  options: { listIds?: string[]; fields?: Record<string, unknown>; overwrite?: boolean } = {},
): ContactInput => ({
  email,
  listIds: 'listIds' in options ? options.listIds : ['L1'],
  fields: new Map(Object.entries(options.fields ?? {})),
  overwrite: options.overwrite ?? false,
});

const field = (definition: Partial<CustomFieldDefinition> & { key: string }): CustomFieldDefinition => ({
  type: 'text',
  required: false,
  defaultValue: null,
  options: [],
  ...definition,
});

const existing = (email: string, extra: Partial<Omit<ExistingContact, 'email'>> = {}): ExistingContact => ({
  id: `id-of-${email}`,
  email,
  standard: emptyStandardValues(),
  custom: new Map(),
  listIds: new Set(['L1']),
  ...extra,
});

function context(
  options: {
    lists?: string[];
    fields?: CustomFieldDefinition[];
    contacts?: ExistingContact[];
    suppressions?: Record<string, SuppressionReason>;
  } = {},
): RuleContext {
  return {
    activeListIds: new Set(options.lists ?? ['L1', 'L2', 'L3']),
    customFields: new Map((options.fields ?? []).map((f) => [f.key, f])),
    existingContacts: new Map((options.contacts ?? []).map((c) => [c.email, c])),
    suppressions: new Map(Object.entries(options.suppressions ?? {})),
  };
}

/** Screens one row and plans it, as the pipeline does for a single contact. */
function run(row: ContactInput, ctx: RuleContext = context()): ContactFailure | PlannedChange {
  const [screened] = screenContacts([row]);
  return screened.kind === 'failed' ? screened.failure : planContact(screened.email, screened.input, ctx);
}

const codeOf = (result: ContactFailure | PlannedChange) => (result.outcome === 'failed' ? result.code : result.outcome);

describe('screenContacts (rules 1–3)', () => {
  it('rule 1: a missing, non-string or invalid email is INVALID_EMAIL; email in the result is normalized or null', () => {
    const rows = screenContacts([input(undefined), input(42), input(null), input(' Not An Email '), input(' Ada@Example.COM ')]);
    expect(rows.map((r) => (r.kind === 'failed' ? [r.failure.code, r.email] : ['candidate', r.email]))).toEqual([
      ['INVALID_EMAIL', null],
      ['INVALID_EMAIL', null],
      ['INVALID_EMAIL', null],
      ['INVALID_EMAIL', 'not an email'],
      ['candidate', 'ada@example.com'],
    ]);
  });

  it('rule 1 comes before rule 3', () => {
    expect(codeOf(run(input('bad', { listIds: [] })))).toBe('INVALID_EMAIL');
  });

  it('rule 2: later rows with the same normalized email fail, the first is processed whatever it becomes', () => {
    const rows = screenContacts([
      input('a@example.com', { listIds: [] }), // fails rule 3 but still "appeared"
      input(' A@EXAMPLE.com'),
      input('b@example.com'),
      input('a@example.com'),
    ]);
    expect(rows.map((r) => (r.kind === 'failed' ? r.failure.code : 'candidate'))).toEqual([
      'EMPTY_LIST_IDS',
      'DUPLICATE_IN_REQUEST',
      'candidate',
      'DUPLICATE_IN_REQUEST',
    ]);
    expect(rows[1].email).toBe('a@example.com');
  });

  it('rule 2 comes before rule 3 for the later row', () => {
    const rows = screenContacts([input('a@example.com'), input('a@example.com', { listIds: [] })]);
    expect(rows[1].kind === 'failed' && rows[1].failure.code).toBe('DUPLICATE_IN_REQUEST');
  });

  it('rule 3: missing or empty listIds is EMPTY_LIST_IDS; more than 20 as given is TOO_MANY_LIST_IDS', () => {
    expect(codeOf(run(input('a@example.com', { listIds: undefined })))).toBe('EMPTY_LIST_IDS');
    expect(codeOf(run(input('a@example.com', { listIds: [] })))).toBe('EMPTY_LIST_IDS');
    expect(codeOf(run(input('a@example.com', { listIds: Array(21).fill('L1') })))).toBe('TOO_MANY_LIST_IDS');
    expect(codeOf(run(input('a@example.com', { listIds: Array(20).fill('L1') })))).toBe('created');
  });
});

describe('planContact (rules 4–10)', () => {
  it('rule 4: invalidListIds holds each offending id once, in order of first appearance', () => {
    const result = run(input('a@example.com', { listIds: ['X', 'L1', 'Y', 'X', 'not-a-uuid', 'Y'] }));
    expect(result).toMatchObject({ code: 'INVALID_LIST', invalidListIds: ['X', 'Y', 'not-a-uuid'] });
  });

  it('rule 4 comes before rule 5', () => {
    expect(codeOf(run(input('a@example.com', { listIds: ['X'], fields: { nope: 1 } })))).toBe('INVALID_LIST');
  });

  it('rule 5: names every unknown key; names are case-sensitive; __proto__ is an ordinary unknown key', () => {
    const fields = JSON.parse('{"FirstName":"A","__proto__":1,"constructor":"x","firstName":"ok"}');
    const result = run(input('a@example.com', { fields }));
    expect(result).toMatchObject({ code: 'UNKNOWN_FIELD' });
    const message = (result as ContactFailure).message;
    for (const key of ['FirstName', '__proto__', 'constructor']) expect(message).toContain(`"${key}"`);
    expect(message).not.toContain('"firstName"');
  });

  it('rule 5 comes before rule 6', () => {
    expect(codeOf(run(input('a@example.com', { fields: { nope: 1, firstName: 5 } })))).toBe('UNKNOWN_FIELD');
  });

  it('rule 6: values that do not fit their field; null always fits', () => {
    const ctx = context({
      fields: [
        field({ key: 'n', type: 'number' }),
        field({ key: 'b', type: 'boolean' }),
        field({ key: 'd', type: 'date' }),
        field({ key: 's', type: 'select', options: ['x', 'y'] }),
        field({ key: 't', type: 'text' }),
      ],
    });
    const bad: Array<Record<string, unknown>> = [
      { firstName: 'a'.repeat(256) },
      { firstName: 5 },
      { firstName: 'a\u0000' },
      { n: '5' },
      { b: 'true' },
      { d: '2023-02-29' },
      { s: 'z' },
      { t: 't'.repeat(2001) },
    ];
    for (const fields of bad) expect([fields, codeOf(run(input('a@example.com', { fields }), ctx))]).toEqual([fields, 'FIELD_TYPE_MISMATCH']);
    const good = { firstName: null, n: 1.5, b: false, d: '2024-02-29', s: 'y', t: null };
    expect(codeOf(run(input('a@example.com', { fields: good }), ctx))).toBe('created');
  });

  it('rule 6 comes before rule 7', () => {
    const ctx = context({ fields: [field({ key: 'req', required: true, defaultValue: 'd' }), field({ key: 'n', type: 'number' })] });
    expect(codeOf(run(input('a@example.com', { fields: { req: null, n: 'x' } }), ctx))).toBe('FIELD_TYPE_MISMATCH');
  });

  it('rule 7: null for a required field is REQUIRED_FIELD_MISSING, even when it has a default', () => {
    const ctx = context({ fields: [field({ key: 'req', required: true, defaultValue: 'd' })] });
    expect(codeOf(run(input('a@example.com', { fields: { req: null } }), ctx))).toBe('REQUIRED_FIELD_MISSING');
  });

  it('rule 7 comes before rules 8 and 9', () => {
    const ctx = context({
      fields: [field({ key: 'req', required: true, defaultValue: 'd' })],
      contacts: [existing('a@example.com')],
      suppressions: { 'a@example.com': 'bounced' },
    });
    expect(codeOf(run(input('a@example.com', { fields: { req: null } }), ctx))).toBe('REQUIRED_FIELD_MISSING');
  });

  it('rule 8: suppressed without overwrite is SUPPRESSED_EMAIL with its reason, before DUPLICATE_EMAIL', () => {
    const ctx = context({ contacts: [existing('a@example.com')], suppressions: { 'a@example.com': 'complained' } });
    expect(run(input('a@example.com'), ctx)).toMatchObject({ code: 'SUPPRESSED_EMAIL', suppressionReason: 'complained' });
    const absent = context({ suppressions: { 'a@example.com': 'unsubscribed' } });
    expect(run(input('a@example.com'), absent)).toMatchObject({ code: 'SUPPRESSED_EMAIL', suppressionReason: 'unsubscribed' });
  });

  it('a suppressed but absent email with overwrite is created', () => {
    const ctx = context({ suppressions: { 'a@example.com': 'bounced' } });
    expect(codeOf(run(input('a@example.com', { overwrite: true }), ctx))).toBe('created');
  });

  it('rule 9: existing without overwrite is DUPLICATE_EMAIL', () => {
    expect(codeOf(run(input('a@example.com'), context({ contacts: [existing('a@example.com')] })))).toBe('DUPLICATE_EMAIL');
  });

  it('rule 9 comes before rule 10', () => {
    const ctx = context({ fields: [field({ key: 'req', required: true })], contacts: [existing('a@example.com')] });
    expect(codeOf(run(input('a@example.com'), ctx))).toBe('DUPLICATE_EMAIL');
  });

  it('rule 10 on create: a required field without value and without default', () => {
    const ctx = context({ fields: [field({ key: 'req', required: true })] });
    expect(codeOf(run(input('a@example.com'), ctx))).toBe('REQUIRED_FIELD_MISSING');
    expect(codeOf(run(input('a@example.com', { fields: { req: 'v' } }), ctx))).toBe('created');
  });

  it('rule 10 on update: a required field with no stored value, not given and without default', () => {
    const ctx = context({ fields: [field({ key: 'req', required: true })], contacts: [existing('a@example.com')] });
    expect(codeOf(run(input('a@example.com', { overwrite: true }), ctx))).toBe('REQUIRED_FIELD_MISSING');
  });
});

describe('create', () => {
  it('applies defaults the input does not set, but not over an explicit null', () => {
    const ctx = context({
      fields: [
        field({ key: 'plan', type: 'select', options: ['free', 'pro'], defaultValue: 'free' }),
        field({ key: 'score', type: 'number', defaultValue: 0 }),
        field({ key: 'req', required: true, defaultValue: 'R' }),
        field({ key: 'note' }),
      ],
    });
    const result = run(input('a@example.com', { fields: { score: null, firstName: 'Ada', note: 'n' } }), ctx);
    expect(result.outcome).toBe('created');
    if (result.outcome !== 'created') return;
    expect(Object.fromEntries(result.custom)).toEqual({ plan: 'free', req: 'R', note: 'n' });
    expect(result.standard).toEqual({ ...emptyStandardValues(), firstName: 'Ada' });
  });

  it('adds each list once, in request order', () => {
    const result = run(input('a@example.com', { listIds: ['L2', 'L1', 'L2'] }));
    expect(result).toMatchObject({ outcome: 'created', listIds: ['L2', 'L1'] });
  });
});

describe('update (overwrite: true)', () => {
  const stored = () =>
    existing('a@example.com', {
      standard: { ...emptyStandardValues(), firstName: 'Ada', city: 'London' },
      custom: new Map<string, unknown>([
        ['score', 3],
        ['born', '1815-12-10'],
      ]),
      listIds: new Set(['L1']),
    });
  const fields = [
    field({ key: 'score', type: 'number' }),
    field({ key: 'born', type: 'date' }),
    field({ key: 'vip', type: 'boolean', defaultValue: false }),
  ];

  it('merges: given keys set, null clears, others kept; reports changedFields sorted and addedListIds', () => {
    const ctx = context({ fields, contacts: [stored()] });
    const result = run(
      input('a@example.com', { overwrite: true, listIds: ['L2', 'L1', 'L3', 'L2'], fields: { score: 4, city: null, lastName: 'L', born: '1815-12-10' } }),
      ctx,
    );
    expect(result).toMatchObject({
      outcome: 'updated',
      contactId: 'id-of-a@example.com',
      changedFields: ['city', 'lastName', 'score'],
      addedListIds: ['L2', 'L3'],
    });
    if (result.outcome !== 'updated') return;
    expect(result.standard).toEqual({ ...emptyStandardValues(), firstName: 'Ada', lastName: 'L' });
    // A non-required default is not applied on update.
    expect(Object.fromEntries(result.custom)).toEqual({ score: 4, born: '1815-12-10' });
  });

  it('is unchanged when every given value equals the stored one and every list is already a membership', () => {
    const ctx = context({ fields, contacts: [stored()] });
    const result = run(
      input('a@example.com', { overwrite: true, fields: { firstName: 'Ada', score: 3, lastName: null, vip: null } }),
      ctx,
    );
    expect(result).toEqual({ outcome: 'unchanged', email: 'a@example.com', contactId: 'id-of-a@example.com' });
  });

  it('a new list alone is an update with no changed fields', () => {
    const result = run(input('a@example.com', { overwrite: true, listIds: ['L2'] }), context({ fields, contacts: [stored()] }));
    expect(result).toMatchObject({ outcome: 'updated', changedFields: [], addedListIds: ['L2'] });
  });

  it('never removes a membership', () => {
    const contact = existing('a@example.com', { listIds: new Set(['L1', 'L3']) });
    const result = run(input('a@example.com', { overwrite: true, listIds: ['L1'] }), context({ contacts: [contact] }));
    expect(result.outcome).toBe('unchanged');
  });

  it('gives a required field with no stored value its default, as a change', () => {
    const ctx = context({ fields: [field({ key: 'tier', required: true, defaultValue: 'basic' })], contacts: [stored()] });
    const result = run(input('a@example.com', { overwrite: true }), ctx);
    expect(result).toMatchObject({ outcome: 'updated', changedFields: ['tier'], addedListIds: [] });
  });

  it('updates a suppressed contact with overwrite (the suppression itself is not the rules\' business)', () => {
    const ctx = context({ contacts: [stored()], suppressions: { 'a@example.com': 'bounced' } });
    expect(codeOf(run(input('a@example.com', { overwrite: true, fields: { city: 'Paris' } }), ctx))).toBe('updated');
  });
});
