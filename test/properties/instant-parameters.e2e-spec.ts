import fc from 'fast-check';
import { bootApp, expectRequestError, Org, type Res, UUID_RE, uniqueEmail } from '../contract/helpers';

/**
 * Instant query parameters through the route (docs/api.md, "Listing contacts"): `updatedSince`
 * generated over the whole range a caller can write — years 0000 to +010000, offsets, fractional
 * seconds of any length — is either read with its meaning (exactly the contacts with updatedAt ≥ it,
 * page after page) or refused 400 INVALID_REQUEST, never a 5xx. The reader itself is checked over
 * many more instants in src/common/instant.spec.ts.
 */
jest.setTimeout(120_000);

const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');
const DAY = 86_400_000;
const pad = (n: number, width: number) => String(n).padStart(width, '0');

const app = bootApp();
let org: Org;
const contacts: Array<{ email: string; updatedAt: number }> = [];

beforeAll(async () => {
  org = await Org.create(app.t, 'Instant org');
  const list = await org.list('Main');
  for (let i = 0; i < 3; i++) {
    const emails = [uniqueEmail('since'), uniqueEmail('since')];
    const res = await org.batch(emails.map((email) => ({ email, listIds: [list] })));
    expect(res.status).toBe(200);
    for (const email of emails) contacts.push({ email, updatedAt: Date.parse((await org.read(email))!.updatedAt) });
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
});

/** `ms` and more digits after its milliseconds, as local time at an offset (extended ISO 8601). */
function write(ms: number, subMilli: string, offsetMinutes: number, separator: string): string {
  const d = new Date(ms + offsetMinutes * 60_000);
  const year = d.getUTCFullYear();
  const yearText = year >= 0 && year <= 9999 ? pad(year, 4) : `${year < 0 ? '-' : '+'}${pad(Math.abs(year), 6)}`;
  const fraction = `${pad(d.getUTCMilliseconds(), 3)}${subMilli}`.replace(/0+$/, '');
  const magnitude = Math.abs(offsetMinutes);
  const zone = offsetMinutes === 0 ? 'Z' : `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(magnitude / 60), 2)}:${pad(magnitude % 60, 2)}`;
  return (
    `${yearText}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:` +
    `${pad(d.getUTCSeconds(), 2)}${fraction ? separator + fraction : ''}${zone}`
  );
}

/** Every page of the filter, two at a time (so the cursor, made for this filter, is used too). */
async function walk(since: string): Promise<Res | string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const res: Res = await org.get(`/api/v2/contacts?limit=2&updatedSince=${encodeURIComponent(since)}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBeLessThan(500);
    expect(res.headers['x-request-id']).toMatch(UUID_RE);
    if (res.status !== 200) return res;
    seen.push(...res.body.contacts.map((c: { email: string }) => c.email));
    cursor = res.body.nextCursor;
    if (cursor === null) return seen;
  }
  throw new Error('the walk did not end');
}

test('the reported instants: past year 9999 after rounding or offset 400 (also with a cursor), year 1 read', async () => {
  for (const since of ['9999-12-31T23:59:59.9999Z', '9999-12-31T23:59:59.999-01:00', '+010000-01-01T00:00:00Z', '0000-12-31T23:59:59Z']) {
    expectRequestError(await org.get(`/api/v2/contacts?updatedSince=${encodeURIComponent(since)}`), 400, 'INVALID_REQUEST');
  }
  const first = await org.get('/api/v2/contacts?limit=1&updatedSince=9999-12-31T23:59:59.999Z');
  expect(first.status).toBe(200);
  // A cursor as the listing would issue it for that filter (the instant rounded into year 10000).
  const cursor = Buffer.from(JSON.stringify({ v: 1, a: 'a', f: JSON.stringify([null, null, Date.parse('+010000-01-01T00:00:00Z')]) })).toString('base64url');
  const next = await org.get(`/api/v2/contacts?limit=1&updatedSince=${encodeURIComponent('9999-12-31T23:59:59.9999Z')}&cursor=${cursor}`);
  expectRequestError(next, 400, 'INVALID_REQUEST');
  expect(await walk('0001-01-01T00:00:00Z')).toEqual(contacts.map((c) => c.email).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
});

test('generated instants over the whole range: exactly the contacts with updatedAt ≥ it, or 400 when it cannot be stored', async () => {
  const times = contacts.map((c) => c.updatedAt);
  const ms = fc.oneof(
    fc.integer({ min: EARLIEST - 2 * DAY, max: LATEST + 2 * DAY }),
    fc.integer({ min: -2 * DAY, max: 2 * DAY }).map((d) => (d < 0 ? EARLIEST : LATEST) + d),
    // Around the contacts' own times: the filter's edge.
    fc.tuple(fc.constantFrom(...times), fc.integer({ min: -3, max: 3 })).map(([t, d]) => t + d),
  );
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(
      ms,
      fc.oneof(fc.constant(''), fc.stringMatching(/^[0-9]{1,20}$/)),
      fc.oneof(fc.constant(0), fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 })),
      fc.constantFrom('.', ','),
      async (at, sub, offset, separator) => {
        cases += 1;
        const since = write(at, sub, offset, separator);
        const finer = /[1-9]/.test(sub);
        const storable = at >= EARLIEST && (at < LATEST || (at === LATEST && !finer));
        const result = await walk(since);
        if (!storable) {
          expect(Array.isArray(result)).toBe(false);
          expectRequestError(result as Res, 400, 'INVALID_REQUEST');
          return;
        }
        expect({ since, result: Array.isArray(result) ? result.sort() : (result).body }).toEqual({
          since,
          result: contacts.filter((c) => c.updatedAt > at || (c.updatedAt === at && !finer)).map((c) => c.email).sort(),
        });
      },
    ),
    { numRuns: 60 },
  );
  process.stdout.write(`[properties] instant parameters: ${cases} generated instants checked\n`);
});
