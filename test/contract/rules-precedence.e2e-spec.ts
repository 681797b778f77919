import type { Response } from 'supertest';
import { bootApp, expectFailure, failedRow, okRow, expectBatch, Org, uniqueEmail } from './helpers';

/**
 * docs/api.md#rules-and-codes: "Each contact is checked by these rules in order; the first that fails is its `code`".
 * For EVERY pair of rules (i < j) a contact breaking both must fail with rule i's code, on
 * POST /contacts (with its HTTP status) and inside a batch. Rule 2 exists only on the batch.
 */

type Rule = '1' | '2' | '3a' | '3b' | '4' | '5' | '6' | '7' | '8' | '9' | '10';
const ORDER: Rule[] = ['1', '2', '3a', '3b', '4', '5', '6', '7', '8', '9', '10'];
const CODE: Record<Rule, string> = {
  '1': 'INVALID_EMAIL',
  '2': 'DUPLICATE_IN_REQUEST',
  '3a': 'EMPTY_LIST_IDS',
  '3b': 'TOO_MANY_LIST_IDS',
  '4': 'INVALID_LIST',
  '5': 'UNKNOWN_FIELD',
  '6': 'FIELD_TYPE_MISMATCH',
  '7': 'REQUIRED_FIELD_MISSING',
  '8': 'SUPPRESSED_EMAIL',
  '9': 'DUPLICATE_EMAIL',
  '10': 'REQUIRED_FIELD_MISSING',
};
/** Test names: the code, and which rule for the two REQUIRED_FIELD_MISSING. */
const NAME: Record<Rule, string> = {
  ...CODE,
  '7': 'REQUIRED_FIELD_MISSING(null, rule 7)',
  '10': 'REQUIRED_FIELD_MISSING(absent, rule 10)',
};
const INCOMPATIBLE = new Set(['3a+3b', '3a+4', '7+10']);
const BOGUS_LIST = '00000000-0000-4000-8000-00000000dead';

interface Scenario {
  org: Org;
  /** rows before the contact under test (batch only) */
  before: Record<string, unknown>[];
  contact: { email: string; listIds: string[]; fields: Record<string, unknown> };
  normalized: string;
}

/** Builds a contact that breaks exactly the given rules (and nothing else). */
async function build(org: Org, rules: Set<Rule>): Promise<Scenario> {
  const list = await org.list('Main');
  const email = rules.has('1') ? `Broken${Math.random().toString(36).slice(2)}@NoDot` : `Ada${Math.random().toString(36).slice(2)}@Example.com`;
  const normalized = email.toLowerCase();
  const contact = { email: `  ${email} `, listIds: [list], fields: {} as Record<string, unknown> };

  if (rules.has('3a')) contact.listIds = [];
  if (rules.has('3b')) contact.listIds = Array(21).fill(list);
  if (rules.has('4')) {
    if (rules.has('3b')) contact.listIds[20] = BOGUS_LIST;
    else contact.listIds.push(BOGUS_LIST);
  }
  if (rules.has('5')) contact.fields.shoeSize = 44;
  if (rules.has('6')) contact.fields.firstName = 42;

  // existing contact (rule 9), then suppression (rule 8), then required fields (rules 7, 10)
  if (rules.has('9')) {
    if (rules.has('1')) {
      await org.rawContact(normalized);
    } else {
      const res = await org.postContact({ email: normalized, listIds: [list] });
      expect(res.status).toBe(201);
    }
  }
  if (rules.has('8')) await org.suppress(normalized, 'unsubscribed');
  if (rules.has('7')) {
    await org.field('plan', 'text', { required: true });
    contact.fields.plan = null;
  }
  if (rules.has('10')) await org.field('tier', 'text', { required: true });

  const before = rules.has('2') ? [{ email: normalized.toUpperCase(), listIds: [list] }] : [];
  return { org, before, contact, normalized };
}

function extrasFor(rule: Rule): Record<string, unknown> {
  if (rule === '4') return { invalidListIds: [BOGUS_LIST] };
  if (rule === '8') return { suppressionReason: 'unsubscribed' };
  return {};
}

const pairs: Array<[Rule, Rule]> = [];
for (let i = 0; i < ORDER.length; i++)
  for (let j = i + 1; j < ORDER.length; j++) {
    const key = `${ORDER[i]}+${ORDER[j]}`;
    if (!INCOMPATIBLE.has(key)) pairs.push([ORDER[i], ORDER[j]]);
  }

describe('rule precedence on POST /api/v2/contacts', () => {
  const app = bootApp();
  const singlePairs = pairs.filter(([a, b]) => a !== '2' && b !== '2');

  it.each(singlePairs.map(([a, b]) => [NAME[a], NAME[b], a, b]))('%s beats %s', async (_n1, _n2, a, b) => {
    const org = await Org.create(app.t);
    const s = await build(org, new Set([a, b] as Rule[]));
    const res: Response = await org.postContact(s.contact);
    expectFailure(res, CODE[a], s.normalized, extrasFor(a));
  });

  it.each(ORDER.filter((r) => r !== '2').map((r) => [NAME[r], r]))('%s alone gives its own code', async (_n, r) => {
    const org = await Org.create(app.t);
    const s = await build(org, new Set([r] as Rule[]));
    expectFailure(await org.postContact(s.contact), CODE[r as Rule], s.normalized, extrasFor(r));
  });

  it('a contact breaking every rule at once fails with INVALID_EMAIL', async () => {
    const org = await Org.create(app.t);
    const s = await build(org, new Set<Rule>(['1', '3b', '4', '5', '6', '7', '8', '9']));
    expectFailure(await org.postContact(s.contact), 'INVALID_EMAIL', s.normalized);
  });

  it('peeling the rules off one by one reports each next rule in order', async () => {
    const remaining: Rule[] = ['3b', '4', '5', '6', '7', '8', '9'];
    while (remaining.length) {
      const org = await Org.create(app.t);
      const s = await build(org, new Set(remaining));
      expectFailure(await org.postContact(s.contact), CODE[remaining[0]], s.normalized, extrasFor(remaining[0]));
      remaining.shift();
    }
  });
});

describe('rule precedence inside POST /api/v2/contacts/batch', () => {
  const app = bootApp();

  it.each(pairs.map(([a, b]) => [NAME[a], NAME[b], a, b]))('%s beats %s', async (_n1, _n2, a, b) => {
    const org = await Org.create(app.t);
    const rules = new Set([a, b] as Rule[]);
    const s = await build(org, rules);
    const res = await org.batch([...s.before, s.contact]);
    expect(res.status).toBe(200);
    const row = res.body.results[s.before.length];
    expect(row).toEqual(failedRow(s.before.length, CODE[a], s.normalized, extrasFor(a)));
  });

  it.each(ORDER.map((r) => [NAME[r], r]))('%s alone gives its own code', async (_n, r) => {
    const org = await Org.create(app.t);
    const s = await build(org, new Set([r] as Rule[]));
    const res = await org.batch([...s.before, s.contact]);
    expect(res.status).toBe(200);
    expect(res.body.results[s.before.length]).toEqual(failedRow(s.before.length, CODE[r], s.normalized, extrasFor(r)));
  });

  it('DUPLICATE_IN_REQUEST beats everything after it even when the first row failed', async () => {
    const org = await Org.create(app.t);
    const list = await org.list();
    const e = uniqueEmail();
    await org.postContact({ email: e, listIds: [list] }); // exists → first row DUPLICATE_EMAIL
    const res = await org.batch([
      { email: e, listIds: [list] },
      { email: e, listIds: [], fields: { nope: 1 } },
      { email: ` ${e.toUpperCase()}`, listIds: [list], overwrite: true },
    ]);
    expectBatch(res, [failedRow(0, 'DUPLICATE_EMAIL', e), failedRow(1, 'DUPLICATE_IN_REQUEST', e), failedRow(2, 'DUPLICATE_IN_REQUEST', e)]);
  });

  it('a duplicate row of a created row fails and is not merged into it', async () => {
    const org = await Org.create(app.t);
    const [l1, l2] = await org.lists(2);
    const e = uniqueEmail();
    const res = await org.batch([
      { email: e, listIds: [l1], fields: { firstName: 'First' } },
      { email: e.toUpperCase(), listIds: [l2], fields: { lastName: 'Second' }, overwrite: true },
    ]);
    expectBatch(res, [okRow(0, 'created', e), failedRow(1, 'DUPLICATE_IN_REQUEST', e)]);
    const stored = await org.read(e);
    expect(stored?.fields).toEqual({ firstName: 'First' });
    expect(stored?.listIds).toEqual([l1]);
  });

  it('an invalid email repeated is INVALID_EMAIL on every row (rule 1 before rule 2)', async () => {
    const org = await Org.create(app.t);
    const list = await org.list();
    const res = await org.batch([
      { email: 'Not An Email', listIds: [list] },
      { email: 'not an email', listIds: [list] },
    ]);
    expectBatch(res, [failedRow(0, 'INVALID_EMAIL', 'not an email'), failedRow(1, 'INVALID_EMAIL', 'not an email')]);
  });
});
