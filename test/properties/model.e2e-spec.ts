import fc from 'fast-check';
import { executeAdminCommand } from '../../src/admin/admin.commands';
import { bootApp, Org, type Reason } from '../contract/helpers';
import { propertyRuns } from './support';

/**
 * Model-based (issue 7): random sequences of create / update (overwrite) / batch / suppress
 * (through the admin command's code) on a few overlapping emails. Every answer is compared with
 * what an in-memory model of the contract predicts, and after each step every email is read back
 * through GET /contacts/{email} and compared with the model.
 */
// The test is bounded by its runs, not by time (PROPERTY_RUNS_FACTOR runs more: test/properties/support.ts).
jest.setTimeout(600_000);

type FieldValue = string | number | null;
interface Input {
  email: string;
  listIds: string[];
  fields: Record<string, FieldValue>;
  overwrite?: boolean;
}
type Op =
  | { kind: 'single'; input: Input }
  | { kind: 'batch'; inputs: Input[] }
  | { kind: 'suppress'; email: string; reason: Reason };

interface Stored {
  fields: Record<string, string | number>;
  lists: Set<string>;
}
interface Model {
  contacts: Map<string, Stored>;
  suppressed: Map<string, Reason>;
}
type Outcome = { status: 'created' | 'updated' | 'unchanged' } | { status: 'failed'; code: string };

const EMAILS = ['ada@example.com', 'bob@example.com', 'cy@example.com'];
const LIST = { a: 'list-a', b: 'list-b', archived: 'list-archived' } as const;

const app = bootApp();
let cases = 0;
let steps = 0;
/** How often each outcome was predicted (and then seen): shows what the sequences covered. */
const outcomes: Record<string, number> = {};
const count = (o: Outcome) => {
  const key = o.status === 'failed' ? o.code : o.status;
  outcomes[key] = (outcomes[key] ?? 0) + 1;
};

afterAll(() => {
  process.stdout.write(
    `[properties] model: ${cases} generated sequences, ${steps} steps compared with the model; outcomes ${JSON.stringify(outcomes)}\n`,
  );
});

// ---- the contract, as a model ------------------------------------------------------------------

const normalize = (email: string) => email.trim().toLowerCase();

/** Rules 2-10 and the outcome for one valid email (docs/api.md#rules-and-codes). Does not change the model. */
function predict(model: Model, input: Input, earlierInRequest: Set<string> | undefined, ids: Record<string, string>): Outcome {
  const email = normalize(input.email);
  if (earlierInRequest?.has(email)) return { status: 'failed', code: 'DUPLICATE_IN_REQUEST' };
  if (input.listIds.length === 0) return { status: 'failed', code: 'EMPTY_LIST_IDS' };
  if (input.listIds.includes(ids.archived)) return { status: 'failed', code: 'INVALID_LIST' };
  if ('nope' in input.fields) return { status: 'failed', code: 'UNKNOWN_FIELD' };
  if (input.fields.score === 'x' || input.fields.tier === 'z') return { status: 'failed', code: 'FIELD_TYPE_MISMATCH' };
  if ('plan' in input.fields && input.fields.plan === null) return { status: 'failed', code: 'REQUIRED_FIELD_MISSING' };
  if (model.suppressed.has(email) && !input.overwrite) return { status: 'failed', code: 'SUPPRESSED_EMAIL' };
  const stored = model.contacts.get(email);
  if (!stored) return { status: 'created' };
  if (!input.overwrite) return { status: 'failed', code: 'DUPLICATE_EMAIL' };
  const fieldChanges = Object.entries(input.fields).some(([k, v]) => (v === null ? k in stored.fields : stored.fields[k] !== v));
  const listChanges = input.listIds.some((id) => !stored.lists.has(id));
  return { status: fieldChanges || listChanges ? 'updated' : 'unchanged' };
}

function apply(model: Model, input: Input, outcome: Outcome): void {
  if (outcome.status === 'failed' || outcome.status === 'unchanged') return;
  const email = normalize(input.email);
  const stored = model.contacts.get(email) ?? { fields: { plan: 'free' }, lists: new Set<string>() };
  if (outcome.status === 'created' && 'plan' in input.fields) delete stored.fields.plan; // set by the input instead
  for (const [k, v] of Object.entries(input.fields)) {
    if (v === null) delete stored.fields[k];
    else stored.fields[k] = v;
  }
  input.listIds.forEach((id) => stored.lists.add(id));
  model.contacts.set(email, stored);
}

// ---- generators ------------------------------------------------------------------------------

const inputArb: fc.Arbitrary<Input> = fc.record(
  {
    email: fc.tuple(fc.constantFrom(...EMAILS), fc.boolean()).map(([e, odd]) => (odd ? `  ${e.toUpperCase()} ` : e)),
    listIds: fc.array(fc.constantFrom<string>(LIST.a, LIST.b, LIST.a, LIST.b, LIST.archived), { maxLength: 3 }),
    fields: fc.oneof(
      fc.constant<Record<string, FieldValue>>({}),
      // The rarer refusals alone too, so that a short run still meets each of them.
      fc.constantFrom<Record<string, FieldValue>>({ firstName: 'Ada' }, { score: 1 }, { firstName: null }, { plan: null }, { tier: 'z' }),
      fc.record(
      {
        firstName: fc.constantFrom<FieldValue>('Ada', 'Bob', null),
        score: fc.constantFrom<FieldValue>(1, 2.5, null, 1, 'x'),
        tier: fc.constantFrom<FieldValue>('a', 'b', null, 'z'),
        plan: fc.constantFrom<FieldValue>('pro', 'free', 'pro', null),
        nope: fc.constant<FieldValue>(1),
      },
      { requiredKeys: [] },
    ) as fc.Arbitrary<Record<string, FieldValue>>,
    ),
    overwrite: fc.constantFrom(true, false),
  },
  { requiredKeys: ['email', 'listIds', 'fields'] },
);
// Rarer failures, so that most steps change the data.
const mostlyValid = fc.oneof(
  { weight: 3, arbitrary: inputArb.filter((i) => i.listIds.length > 0 && !i.listIds.includes(LIST.archived) && !('nope' in i.fields)) },
  { weight: 2, arbitrary: inputArb },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: mostlyValid.map((input): Op => ({ kind: 'single', input })) },
  { weight: 2, arbitrary: fc.array(mostlyValid, { minLength: 1, maxLength: 4 }).map((inputs): Op => ({ kind: 'batch', inputs })) },
  {
    // Often enough that a later write of the same address without overwrite meets SUPPRESSED_EMAIL in every run.
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...EMAILS), fc.constantFrom<Reason>('bounced', 'complained', 'unsubscribed'))
      .map(([email, reason]): Op => ({ kind: 'suppress', email, reason })),
  },
);

// ---- running a sequence --------------------------------------------------------------------------

function withIds(input: Input, ids: Record<string, string>): Input {
  return { ...input, listIds: input.listIds.map((l) => ids[l.replace('list-', '')]) };
}

function resultOf(body: { status: string; code?: string }): Outcome {
  return body.status === 'failed' ? { status: 'failed', code: String(body.code) } : ({ status: body.status } as Outcome);
}

async function compareReads(org: Org, model: Model): Promise<void> {
  for (const email of EMAILS) {
    const res = await org.getContact(email);
    const stored = model.contacts.get(email);
    if (!stored) {
      expect({ email, status: res.status, code: res.body.error?.code }).toEqual({ email, status: 404, code: 'CONTACT_NOT_FOUND' });
      continue;
    }
    expect(res.status).toBe(200);
    const contact = res.body.contact;
    const reason = model.suppressed.get(email);
    expect({
      email: contact.email,
      fields: contact.fields,
      lists: [...contact.listIds].sort(),
      suppressed: contact.suppressed,
    }).toEqual({
      email,
      fields: stored.fields,
      lists: [...stored.lists].sort(),
      suppressed: reason ? { reason } : null,
    });
  }
}

async function runSequence(ops: Op[]): Promise<void> {
  cases += 1;
  const t = app.t;
  const org = await Org.create(t, `Model org ${cases}`);
  const ids: Record<string, string> = { a: await org.list('A'), b: await org.list('B'), archived: await org.list('Old', true) };
  await org.field('score', 'number');
  await org.field('tier', 'select', { options: ['a', 'b'] });
  await org.field('plan', 'text', { required: true, defaultValue: 'free' });
  const model: Model = { contacts: new Map(), suppressed: new Map() };

  for (const op of ops) {
    steps += 1;
    if (op.kind === 'suppress') {
      await executeAdminCommand(t.prisma, { command: 'suppress', org: org.id, email: op.email, reason: op.reason });
      model.suppressed.set(op.email, op.reason);
    } else if (op.kind === 'single') {
      const input = withIds(op.input, ids);
      const expected = predict(model, input, undefined, ids);
      count(expected);
      const res = await org.postContact(input);
      expect({ op, answer: resultOf(res.body) }).toEqual({ op, answer: expected });
      expect(res.status).toBe(
        expected.status === 'created' ? 201 : expected.status !== 'failed' ? 200 : ['DUPLICATE_EMAIL', 'SUPPRESSED_EMAIL'].includes(expected.code) ? 409 : 400,
      );
      apply(model, input, expected);
    } else {
      const inputs = op.inputs.map((i) => withIds(i, ids));
      const seen = new Set<string>();
      const expected = inputs.map((input) => {
        const outcome = predict(model, input, seen, ids);
        seen.add(normalize(input.email));
        count(outcome);
        return outcome;
      });
      const res = await org.batch(inputs);
      expect(res.status).toBe(200);
      expect({ op, answers: res.body.results.map(resultOf) }).toEqual({ op, answers: expected });
      inputs.forEach((input, i) => apply(model, input, expected[i]));
    }
    await compareReads(org, model);
  }
}

describe('random sequences of writes agree with a model of the contract after every step', () => {
  it('create / overwrite / batch / suppress on overlapping emails', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 10 }), runSequence),
      { numRuns: propertyRuns(40) },
    );
    // Every outcome the generators are written to reach came up (and was compared with the model).
    const kinds = ['created', 'updated', 'unchanged', 'DUPLICATE_IN_REQUEST', 'EMPTY_LIST_IDS', 'INVALID_LIST', 'UNKNOWN_FIELD'];
    kinds.push('FIELD_TYPE_MISMATCH', 'REQUIRED_FIELD_MISSING', 'SUPPRESSED_EMAIL', 'DUPLICATE_EMAIL');
    expect(kinds.filter((kind) => !outcomes[kind])).toEqual([]);
  });
});
