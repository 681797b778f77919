import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { bootApp, Org, type Res } from '../contract/helpers';
import { generatedRequests, Outcomes, propertyRuns, sendChecked } from './support';

/**
 * Property-based: generated bodies and paths for POST/PATCH /api/v2/lists and /api/v2/fields
 * (docs/api.md, "Lists", "Custom fields") never get a 5xx, always get the contract's body shape
 * with X-Request-Id, a request-level error writes nothing, and a success answers exactly what is
 * then stored (GET /lists, GET /fields). Bounded runs; the number of cases is printed.
 */
jest.setTimeout(180_000);

const CODES: Record<string, number> = {
  INVALID_REQUEST: 400,
  LIST_NOT_FOUND: 404,
  FIELD_NOT_FOUND: 404,
  FIELD_KEY_TAKEN: 409,
  PAYLOAD_TOO_LARGE: 413,
};

const app = bootApp();
let org: Org;
let adminKey: string;
let listId: string;
const cases = generatedRequests('lists-fields-input');

beforeAll(async () => {
  org = await Org.create(app.t, 'Property lists and fields');
  adminKey = await org.newKey({ scope: 'admin' });
  listId = (await send('POST', '/api/v2/lists', JSON.stringify({ name: 'Main' }))).body.list.id;
  for (const body of [
    { key: 'tier', type: 'select', options: ['a', 'b'] },
    { key: 'score', type: 'number' },
    { key: 'note', type: 'text', defaultValue: 'n' },
  ]) {
    expect((await send('POST', '/api/v2/fields', JSON.stringify(body))).status).toBe(201);
  }
});

function send(method: 'POST' | 'PATCH', path: string, body: string): Promise<Res> {
  const req = method === 'POST' ? app.t.http().post(path) : app.t.http().patch(path);
  return req.set('Authorization', `Bearer ${adminKey}`).set('Content-Type', 'application/json').send(body);
}

/** Everything of the organization these endpoints can change. */
async function footprint(): Promise<string> {
  const [lists, fields] = await Promise.all([
    app.t.prisma.list.findMany({ where: { organizationId: org.id }, orderBy: { id: 'asc' }, select: { id: true, name: true, archived: true } }),
    app.t.prisma.customField.findMany({
      where: { organizationId: org.id },
      orderBy: { key: 'asc' },
      select: { key: true, type: true, required: true, defaultValue: true, options: true },
    }),
  ]);
  return JSON.stringify({ lists, fields });
}

async function check(method: 'POST' | 'PATCH', path: string, body: string, outcomes: Outcomes): Promise<void> {
  cases.checked();
  const { res, requestLevelError } = await sendChecked(() => send(method, path, body), footprint, CODES);
  outcomes.saw(`${method} ${requestLevelError ? res.body.error.code : res.status}`);
  if (requestLevelError) return;
  expect(res.status).toBe(method === 'POST' ? 201 : 200);
  if (path.startsWith('/api/v2/lists')) {
    expect(Object.keys(res.body).sort()).toEqual(['list', 'request_id']);
    const lists = (await app.t.http().get('/api/v2/lists').set('Authorization', `Bearer ${adminKey}`)).body.lists;
    expect(lists).toContainEqual(res.body.list);
  } else {
    expect(Object.keys(res.body).sort()).toEqual(['field', 'request_id']);
    const fields = (await app.t.http().get('/api/v2/fields').set('Authorization', `Bearer ${adminKey}`)).body.custom;
    expect(fields).toContainEqual(res.body.field);
  }
}

const edgeString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', 'a\udfffb', '😀', '__proto__', 'constructor', 'firstName', 'x'.repeat(256), '😀'.repeat(255)),
);
const oddValue = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1e308, '', [], {}, '1', 'true', '2024-02-29', '2023-02-29', 'a', 'b', 'c'),
  edgeString,
  fc.jsonValue({ maxDepth: 2, stringUnit: 'binary' }),
  fc.array(fc.oneof(edgeString, fc.constantFrom('a', 'b', 'c')), { maxLength: 4 }),
);
const protoKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'type', 'key', 'label', 'archived', 'name');

/** An object of some of `keys` with generated values, sometimes plus another key. */
const bodyOf = (keys: string[], values: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc
    .tuple(
      fc.subarray(keys),
      fc.option(fc.tuple(protoKey, oddValue), { nil: undefined }),
      fc.array(oddValue, { minLength: keys.length, maxLength: keys.length }),
    )
    .chain(([chosen, extra, generic]) =>
      fc.tuple(...chosen.map((key, i) => (values[key] ? fc.oneof(values[key], fc.constant(generic[i])) : fc.constant(generic[i])))).map((vals) => {
        const entries = chosen.map((key, i) => `${JSON.stringify(key)}:${JSON.stringify(vals[i]) ?? 'null'}`);
        if (extra) entries.push(`${JSON.stringify(extra[0])}:${JSON.stringify(extra[1]) ?? 'null'}`);
        return `{${entries.join(',')}}`;
      }),
    );

const fieldKey = fc.oneof(fc.constantFrom('tier', 'score', 'note', 'Tier', 'firstName', '1x', 'new_field'), fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,8}$/));
/** The keys of the fields beforeAll creates. */
const existingKey = fc.constantFrom('tier', 'score', 'note');
const fieldType = fc.oneof(fc.constantFrom('text', 'number', 'boolean', 'date', 'select'), oddValue);
const rawText = fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), oddValue.map((v) => JSON.stringify(v) ?? 'null'));

describe('generated bodies for lists and fields never get a 5xx, and a refusal writes nothing', () => {
  it('POST /api/v2/lists and PATCH /api/v2/lists/{id}', async () => {
    const name = fc.oneof(edgeString, fc.constantFrom('News', ' padded ', 'x'.repeat(255)));
    // Valid bodies too, so that successes (and LIST_NOT_FOUND) come up in a short run.
    // (A name alone is what POST takes; `archived` is for PATCH only.)
    const validName = fc.tuple(fc.constantFrom('News', ' padded', '😀', 'x'.repeat(240)), fc.nat()).map(([n, i]) => `${n} ${i}`);
    const valid = fc.oneof(
      { weight: 2, arbitrary: fc.record({ name: validName }) },
      { weight: 1, arbitrary: fc.record({ archived: fc.boolean() }) },
      { weight: 1, arbitrary: fc.record({ name: validName, archived: fc.boolean() }) },
    );
    const body = fc.oneof(
      { weight: 5, arbitrary: bodyOf(['name', 'archived'], { name, archived: fc.boolean() }) },
      { weight: 1, arbitrary: rawText },
      { weight: 5, arbitrary: valid.map((v) => JSON.stringify(v)) },
    );
    const outcomes = new Outcomes('lists-fields-input lists');
    const id = fc.oneof(
      { weight: 3, arbitrary: fc.constant('LIST') },
      { weight: 2, arbitrary: fc.constant(randomUUID()) },
      { weight: 1, arbitrary: fc.constantFrom('nope', '%E0%A4%A', '%00', '..') },
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), id, body, async (isPost, target, text) => {
        if (isPost) await check('POST', '/api/v2/lists', text, outcomes);
        else await check('PATCH', `/api/v2/lists/${target === 'LIST' ? listId : target}`, text, outcomes);
      }),
      { numRuns: propertyRuns(80) },
    );
    outcomes.expectReached(['POST 201', 'POST INVALID_REQUEST', 'PATCH 200', 'PATCH INVALID_REQUEST', 'PATCH LIST_NOT_FOUND']);
  });

  it('POST /api/v2/fields and PATCH /api/v2/fields/{key}', async () => {
    const outcomes = new Outcomes('lists-fields-input fields');
    const createBody = fc.oneof(
      { weight: 5, arbitrary: bodyOf(['key', 'type', 'required', 'defaultValue', 'options'], { key: fieldKey, type: fieldType, required: fc.boolean() }) },
      { weight: 1, arbitrary: rawText },
      // Valid bodies too, so that creations (and FIELD_KEY_TAKEN) come up in a short run.
      {
        weight: 5,
        arbitrary: fc
          .oneof(
            fc.record({ key: fc.oneof(fieldKey, existingKey), type: fc.constantFrom('text', 'number', 'boolean', 'date'), required: fc.boolean() }, { requiredKeys: ['key', 'type'] }),
            fc.record({ key: fc.oneof(fieldKey, existingKey), type: fc.constant('select'), options: fc.constantFrom(['a', 'b'], ['x']) }),
          )
          .map((v) => JSON.stringify(v)),
      },
    );
    const patchBody = fc.oneof(
      {
        weight: 5,
        arbitrary: bodyOf(['required', 'defaultValue', 'options'], {
          required: fc.boolean(),
          options: fc.constantFrom(['a', 'b', 'c'], ['b', 'a'], ['a'], ['a', 'b', 'b'], ['a', 'b', ''], []),
          defaultValue: fc.constantFrom('a', 'c', 5, null, 'n'),
        }),
      },
      { weight: 1, arbitrary: rawText },
      { weight: 5, arbitrary: fc.record({ required: fc.boolean() }).map((v) => JSON.stringify(v)) },
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.oneof(fieldKey, existingKey), createBody, patchBody, async (isPost, key, create, patch) => {
        if (isPost) await check('POST', '/api/v2/fields', create, outcomes);
        else await check('PATCH', `/api/v2/fields/${encodeURIComponent(key)}`, patch, outcomes);
      }),
      { numRuns: propertyRuns(100) },
    );
    outcomes.expectReached(['POST 201', 'POST INVALID_REQUEST', 'POST FIELD_KEY_TAKEN', 'PATCH 200', 'PATCH INVALID_REQUEST', 'PATCH FIELD_NOT_FOUND']);
    // Whatever happened, no select field lost an option it had at the start.
    const tier = (await app.t.prisma.customField.findFirst({ where: { organizationId: org.id, key: 'tier' } }))!;
    expect(tier.options).toEqual(expect.arrayContaining(['a', 'b']));
    expect(tier.type).toBe('select');
  });
});
