import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { UUID_RE, bootApp, Org, type Res } from '../contract/helpers';
import { generatedRequests, Outcomes, propertyRuns, sendChecked } from './support';
import { CONTACT_ERROR_CODES } from '../../src/contacts/contact-error-codes';

/**
 * Property-based (issue 7): bodies of every shape for both POST endpoints — near-valid contacts
 * with one thing wrong, unicode edge cases (lone surrogates, U+0000), huge strings, deep nesting,
 * prototype keys, arbitrary JSON and arbitrary bytes — never get a 5xx, always get the contract's
 * body shape with X-Request-Id, and a request-level error writes nothing. Bounded runs; the
 * number of generated cases is printed.
 */
jest.setTimeout(120_000);

const REQUEST_LEVEL: Record<string, number> = {
  INVALID_REQUEST: 400,
  BATCH_LIMIT_EXCEEDED: 400,
  PAYLOAD_TOO_LARGE: 413,
};
// The per-contact codes (their list is pinned to contract section 4 in contact-error-codes.spec.ts).
const CONTACT_CODES = new Set<string>(CONTACT_ERROR_CODES);

const app = bootApp();
let org: Org;
let listId: string;
let archivedId: string;
const cases = generatedRequests('generated-input');

beforeAll(async () => {
  org = await Org.create(app.t, 'Property org');
  listId = await org.list('Main');
  archivedId = await org.list('Old', true);
  await org.field('score', 'number');
  await org.field('tier', 'select', { options: ['a', 'b'] });
  await org.field('birthday', 'date');
  await org.field('plan', 'text', { required: true, defaultValue: 'free' });
});

/** Rows the organization owns: a request-level error must leave every count as it was. */
async function footprint(): Promise<string> {
  const rows = await app.t.prisma.$queryRawUnsafe<Array<{ c: number; m: number; s: number }>>(
    `SELECT (SELECT count(*)::int FROM contacts WHERE organization_id = $1) AS c,
            (SELECT count(*)::int FROM list_memberships lm JOIN contacts k ON k.id = lm.contact_id WHERE k.organization_id = $1) AS m,
            (SELECT count(*)::int FROM stored_responses WHERE organization_id = $1) AS s`,
    org.id,
  );
  return JSON.stringify(rows[0]);
}

/** The invariants every answer of the POST endpoints keeps. */
async function checkAnswer(kind: 'single' | 'batch', send: () => Promise<Res>, outcomes: Outcomes): Promise<void> {
  cases.checked();
  const { res, requestLevelError } = await sendChecked(send, footprint, REQUEST_LEVEL);
  if (requestLevelError) {
    outcomes.saw(res.body.error.code);
    return;
  }
  if (kind === 'single') {
    outcomes.saw(res.body.status === 'failed' ? res.body.code : res.body.status);
    if (res.body.status === 'failed') {
      expect(CONTACT_CODES.has(res.body.code)).toBe(true);
      expect(res.status).toBe(res.body.code === 'DUPLICATE_EMAIL' || res.body.code === 'SUPPRESSED_EMAIL' ? 409 : 400);
      expect(res.body.email === null || typeof res.body.email === 'string').toBe(true);
      expect(typeof res.body.message).toBe('string');
    } else {
      expect(['created', 'updated', 'unchanged']).toContain(res.body.status);
      expect(res.status).toBe(res.body.status === 'created' ? 201 : 200);
      expect(res.body.id).toMatch(UUID_RE);
    }
    return;
  }
  expect(res.status).toBe(200);
  const { results, summary } = res.body;
  expect(Array.isArray(results)).toBe(true);
  results.forEach((row: { index: number; status: string; code?: string }, i: number) => {
    outcomes.saw(`row ${row.status === 'failed' ? row.code : row.status}`);
    expect(row.index).toBe(i);
    if (row.status === 'failed') expect(CONTACT_CODES.has(String(row.code))).toBe(true);
    else expect(['created', 'updated', 'unchanged']).toContain(row.status);
  });
  expect(summary.created + summary.updated + summary.unchanged + summary.failed).toBe(results.length);
}

// ---- generators -------------------------------------------------------------------------------

const edgeChars = fc.constantFrom('\u0000', '\ud800', '\udfff', '\ud83d\ude00', '\u202e', '\ufeff', 'e\u0301', '\uffff', '\u2028', 'İ', 'ß', '\u{10ffff}');
const edgeString = fc
  .tuple(fc.string({ unit: 'binary', maxLength: 12 }), edgeChars, fc.string({ unit: 'binary', maxLength: 12 }))
  .map(([a, b, c]) => a + b + c);
const hugeString = fc.integer({ min: 250, max: 400_000 }).map((n) => 'x'.repeat(n));
/** `{"a":{"a":...1}}` nested `depth` times, as text (deeper than JSON.stringify can handle here). */
const deepText = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
/** The same as a parsed value, shallow enough to be serialized again by the generators. */
const deep = fc.integer({ min: 1, max: 500 }).map((depth) => JSON.parse(deepText(depth)) as unknown);
const protoObject = fc
  .constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__')
  .chain((key) => fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value)}}`) as unknown));
const oddValue = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1e308, '', [], {}, '1', 'true'),
  edgeString,
  hugeString,
  deep,
  protoObject,
  fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }),
);
const oddEmail = fc.oneof(
  oddValue,
  fc.constantFrom('  ADA@EXAMPLE.COM ', 'a@b', 'a@@b.com', `${'l'.repeat(65)}@example.com`, `a@${'d'.repeat(250)}.com`, 'ada@exämple.com', 'ada\u0000@example.com'),
  edgeString.map((s) => `${s}@example.com`),
);
const oddListIds = fc.oneof(
  oddValue,
  fc.constant<unknown>(Array.from({ length: 21 }, () => randomUUID())),
  fc.constant<unknown>([randomUUID()]),
  fc.array(oddValue, { maxLength: 3 }),
  fc.constant<unknown>(['\u0000']),
);
const fieldsArb = fc.oneof(
  oddValue,
  protoObject,
  fc.record({ firstName: oddValue }),
  fc.record({ score: oddValue }),
  fc.record({ tier: oddValue }),
  fc.record({ birthday: fc.oneof(oddValue, fc.constantFrom('2023-02-30', '2024-02-29', '20240101', '2024-13-01')) }),
  fc.record({ plan: oddValue }),
  fc.dictionary(edgeString, oddValue, { maxKeys: 3 }),
);

/** A valid contact with exactly one thing changed (or removed, or added). */
function nearValid(): fc.Arbitrary<unknown> {
  const base = () => ({ email: `p${randomUUID().slice(0, 8)}@example.com`, listIds: [listId], fields: { firstName: 'Ada' } });
  return fc.oneof(
    // The rarer per-contact refusals alone too, so that a short run still meets each of them.
    {
      weight: 6,
      arbitrary: fc
        .constantFrom<Record<string, unknown>>(
          { listIds: [] },
          { listIds: Array.from({ length: 21 }, () => randomUUID()) },
          { fields: { nope: 1 } },
          { fields: { plan: null } },
          { fields: { score: 'x' } },
        )
        .map((change) => ({ ...base(), ...change })),
    },
    oddEmail.map((email) => ({ ...base(), email })),
    fc.constantFrom('email', 'listIds', 'fields').map((key) => {
      const c: Record<string, unknown> = base();
      delete c[key];
      return c;
    }),
    oddListIds.map((listIds) => ({ ...base(), listIds })),
    fc.constant<unknown>({ ...base(), listIds: [listId, archivedId] }),
    fieldsArb.map((fields) => ({ ...base(), fields })),
    oddValue.map((overwrite) => ({ ...base(), overwrite })),
    fc.tuple(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'extra', 'Email'), edgeString), oddValue).map(([key, value]) => {
      const c = base();
      return JSON.parse(JSON.stringify(c).slice(0, -1) + `,${JSON.stringify(key)}:${JSON.stringify(value)}}`) as unknown;
    }),
    fc.constant<unknown>(base()), // the valid one itself
  );
}

/** A body as text: mostly JSON of a generated value, sometimes broken text. */
const singleBody = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null).chain(() => nearValid()).map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: oddValue.map((v) => JSON.stringify(v) ?? 'undefined') },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((d) => '['.repeat(d) + ']'.repeat(d)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('firstName', 'score', 'plan', '__proto__'), fc.integer({ min: 1_000, max: 20_000 }))
      .map(([key, depth]) => `{"email":"deep${depth}@example.com","listIds":[${JSON.stringify(listId)}],"fields":{"${key}":${deepText(depth)}}}`),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);
const batchBody = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.constant(null).chain(() => nearValid()), { minLength: 1, maxLength: 6 }).map((contacts) => JSON.stringify({ contacts })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('__proto__', 'constructor', 'extra'), oddValue).map(([k, v]) => `{"contacts":[],${JSON.stringify(k)}:${JSON.stringify(v)}}`) },
  { weight: 1, arbitrary: oddValue.map((contacts) => JSON.stringify({ contacts })) },
  { weight: 1, arbitrary: fc.integer({ min: 51, max: 60 }).map((n) => JSON.stringify({ contacts: Array.from({ length: n }, () => ({})) })) },
  { weight: 1, arbitrary: oddValue.map((v) => JSON.stringify(v) ?? 'undefined') },
);

// The outcomes each test's generators are written to reach (its default run meets each of them).
const PER_CONTACT = ['created', 'INVALID_EMAIL', 'EMPTY_LIST_IDS', 'TOO_MANY_LIST_IDS', 'INVALID_LIST', 'UNKNOWN_FIELD', 'FIELD_TYPE_MISMATCH', 'REQUIRED_FIELD_MISSING'];
const SINGLE_REACHES = ['INVALID_REQUEST', ...PER_CONTACT];
const BATCH_REACHES = ['INVALID_REQUEST', 'BATCH_LIMIT_EXCEEDED', ...PER_CONTACT.map((kind) => `row ${kind}`)];
const BYTES_REACHES = ['INVALID_REQUEST'];

describe('generated bodies never get a 5xx and always get the contract body shape', () => {
  const endpoints = [
    { kind: 'single', path: '/api/v2/contacts', body: singleBody, runs: 140, reaches: SINGLE_REACHES },
    { kind: 'batch', path: '/api/v2/contacts/batch', body: batchBody, runs: 80, reaches: BATCH_REACHES },
  ] as const;
  it.each(endpoints)('POST $path', async ({ kind, path, body, runs, reaches }) => {
    const outcomes = new Outcomes(`generated-input ${kind}`);
    await fc.assert(
      fc.asyncProperty(body, (sent) => checkAnswer(kind, () => org.postRaw(path, sent), outcomes)),
      { numRuns: propertyRuns(runs) },
    );
    outcomes.expectReached(reaches);
  });

  it('arbitrary bytes, over-limit bodies and odd content types on both endpoints', async () => {
    const outcomes = new Outcomes('generated-input bytes');
    const bytes = fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a));
    const path = fc.constantFrom('/api/v2/contacts', '/api/v2/contacts/batch');
    await fc.assert(
      fc.asyncProperty(path, bytes, (p, b) => checkAnswer(p.endsWith('batch') ? 'batch' : 'single', () => org.postBytes(p, b), outcomes)),
      { numRuns: propertyRuns(40) },
    );
    outcomes.expectReached(BYTES_REACHES);
    const big = Buffer.from(JSON.stringify({ contacts: [{ email: 'a@b.com', listIds: [listId], fields: { firstName: 'x'.repeat(1_048_600) } }] }));
    const last = new Outcomes('generated-input over-limit and content type');
    await checkAnswer('batch', () => org.postBytes('/api/v2/contacts/batch', big), last);
    await checkAnswer('single', () => org.postRaw('/api/v2/contacts', '{}', 'text/plain'), last);
    last.expectReached(['PAYLOAD_TOO_LARGE', 'INVALID_REQUEST']);
  });
});
