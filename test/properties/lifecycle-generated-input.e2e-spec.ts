import fc from 'fast-check';
import { bootApp, Org, type Res } from '../contract/helpers';
import { generatedRequests, sendChecked } from './support';

/**
 * Property-based, for the lifecycle endpoints (docs/api.md, "Listing contacts", "Removing from
 * lists", "Deleting contacts"): generated query strings, paths and bodies never get a 5xx, always
 * get the contract's body with X-Request-Id, and a request-level error writes nothing.
 */
jest.setTimeout(180_000);

const REQUEST_LEVEL: Record<string, number> = {
  INVALID_REQUEST: 400,
  BATCH_LIMIT_EXCEEDED: 400,
  PAYLOAD_TOO_LARGE: 413,
  LIST_NOT_FOUND: 404,
  CONTACT_NOT_FOUND: 404,
  NOT_FOUND: 404,
  LAST_LIST_MEMBERSHIP: 409,
};
const ROW_CODES = new Set(['INVALID_EMAIL', 'DUPLICATE_IN_REQUEST', 'CONTACT_NOT_FOUND', 'LAST_LIST_MEMBERSHIP']);

const app = bootApp();
let org: Org;
let listId: string;
let other: string;
const cases = generatedRequests('lifecycle generated-input');
const known = ['ada@example.com', 'bob@example.com', 'Cy@Example.com', 'a_b@example.com'];

beforeAll(async () => {
  org = await Org.create(app.t, 'Lifecycle property org');
  listId = await org.list('Main');
  other = await org.list('Other');
  const res = await org.batch(known.map((email) => ({ email, listIds: [listId, other] })));
  expect(res.status).toBe(200);
});

/** Everything of the organization these endpoints could change: contacts, memberships, update times. */
async function footprint(): Promise<string> {
  const rows = await app.t.prisma.$queryRawUnsafe<Array<{ c: string }>>(
    `SELECT json_build_object(
       'contacts', (SELECT json_agg(json_build_object('e', email, 'u', updated_at) ORDER BY email) FROM contacts WHERE organization_id = $1),
       'memberships', (SELECT json_agg(lm.contact_id || lm.list_id ORDER BY lm.contact_id, lm.list_id)
                       FROM list_memberships lm JOIN contacts k ON k.id = lm.contact_id WHERE k.organization_id = $1))::text AS c`,
    org.id,
  );
  return rows[0].c;
}

async function check(send: () => Promise<Res>, kind: 'list' | 'remove' | 'removeOne' | 'delete'): Promise<void> {
  cases.checked();
  const { res, requestLevelError, before } = await sendChecked(send, footprint, REQUEST_LEVEL);
  if (requestLevelError) return;
  expect(res.status).toBe(200);
  if (kind === 'list') {
    expect(Array.isArray(res.body.contacts)).toBe(true);
    expect(res.body.nextCursor === null || typeof res.body.nextCursor === 'string').toBe(true);
    expect(await footprint()).toBe(before);
  } else if (kind === 'remove') {
    for (const row of res.body.results) {
      if (row.status === 'failed') expect(ROW_CODES.has(row.code)).toBe(true);
      else expect(['removed', 'unchanged']).toContain(row.status);
    }
  } else if (kind === 'removeOne') {
    expect(['removed', 'unchanged']).toContain(res.body.status);
  } else {
    expect(res.body.status).toBe('deleted');
  }
}

/** Strings that stress parsing: unicode edge cases, NUL, percent signs, huge, near-valid. */
const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', '%', '%ZZ', '1e3', '-0', '0x10', 'true', 'null', '[]', '{}', 'x'.repeat(3000)),
  fc.constantFrom(...known, ' ADA@EXAMPLE.COM ', 'ghost@example.com', 'not-an-email'),
  fc.integer().map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
);

test('GET /api/v2/contacts with generated query strings', async () => {
  const param = fc.tuple(fc.constantFrom('limit', 'cursor', 'listId', 'suppressed', 'updatedSince', 'bogus', 'limit'), nasty);
  await fc.assert(
    fc.asyncProperty(fc.array(param, { maxLength: 4 }), fc.boolean(), async (params, realList) => {
      const query = new URLSearchParams(params.map(([k, v]): [string, string] => [k, v.replace(/[\ud800-\udfff]/g, '')]));
      if (realList) query.set('listId', listId);
      await check(() => org.get(`/api/v2/contacts?${query.toString()}`), 'list');
    }),
    { numRuns: 120 },
  );
});

test('POST /api/v2/lists/{listId}/contacts/remove with generated bodies', async () => {
  const emails = fc.array(fc.oneof(nasty, fc.anything()), { maxLength: 55 });
  const body = fc.oneof(
    emails.map((list) => ({ emails: list })),
    fc.record({ emails, extra: fc.anything() }),
    fc.anything(),
  );
  await fc.assert(
    fc.asyncProperty(body, fc.constantFrom('main', 'other', 'bogus'), async (b, which) => {
      const id = which === 'main' ? listId : which === 'other' ? other : 'bogus-list';
      await check(() => org.postRaw(`/api/v2/lists/${id}/contacts/remove`, JSON.stringify(b) ?? ''), 'remove');
    }),
    { numRuns: 120 },
  );
});

test('DELETE paths with generated emails and list ids', async () => {
  const segment = nasty.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '')) || '%20');
  await fc.assert(
    fc.asyncProperty(segment, fc.oneof(segment, fc.constant(other)), fc.boolean(), async (email, list, contact) => {
      const del = (path: string) => app.t.http().delete(path).set('Authorization', `Bearer ${org.key}`);
      if (contact) await check(() => del(`/api/v2/contacts/${email}`), 'delete');
      else await check(() => del(`/api/v2/lists/${list}/contacts/${email}`), 'removeOne');
    }),
    { numRuns: 120 },
  );
});
