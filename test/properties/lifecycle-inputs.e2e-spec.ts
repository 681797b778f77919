import fc from 'fast-check';
import { bootApp, Org } from '../contract/helpers';
import { adminKey } from '../contract/lifecycle-helpers';

/**
 * Generated inputs for the erase and suppressions endpoints (docs/api.md, "Suppressions",
 * "Erasing a contact"): whatever the body, path or query, no answer is 5xx, and a request-level
 * error (4xx with `error`) writes nothing (the organization's rows are counted before and after).
 */
jest.setTimeout(300_000);

const app = bootApp();

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const reason = fc.oneof(fc.constantFrom('bounced', 'complained', 'unsubscribed'), fc.string({ maxLength: 12 }));
const emailish = fc.oneof(
  fc.emailAddress(),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('a@b.co', ' A@B.CO ', '', '%', '\u0000@x.com', 'x@\ud800.com', 'a'.repeat(300) + '@x.com'),
);
const row = fc.oneof(
  fc.record({ email: emailish, reason }, { requiredKeys: [] }),
  fc.record({ email: emailish, reason, extra: jsonValue }),
  jsonValue,
);
const suppressBody = fc.oneof(
  fc.record({ suppressions: fc.array(row, { maxLength: 55 }) }),
  fc.record({ suppressions: jsonValue }),
  jsonValue,
);

async function counts(org: Org) {
  const where = { organizationId: org.id };
  const prisma = app.t.prisma;
  return {
    contacts: await prisma.contact.count({ where }),
    suppressions: await prisma.suppression.count({ where }),
    erased: await prisma.erasedSuppression.count({ where }),
    answers: await prisma.storedResponse.count({ where }),
  };
}

describe('generated inputs: no 5xx, request-level errors write nothing', () => {
  it('POST /api/v2/suppressions with generated bodies', async () => {
    const { org } = await Org.withList(app.t);
    await fc.assert(
      fc.asyncProperty(suppressBody, async (body) => {
        const before = await counts(org);
        const res = await org.postRaw('/api/v2/suppressions', JSON.stringify(body));
        expect(res.status).toBeLessThan(500);
        if (res.status !== 200) {
          expect(res.body.error.code).toMatch(/^(INVALID_REQUEST|BATCH_LIMIT_EXCEEDED)$/);
          expect(await counts(org)).toEqual(before);
        } else {
          expect(res.body.results).toHaveLength((body as { suppressions: unknown[] }).suppressions.length);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('erase, lift and list with generated paths, bodies and queries', async () => {
    const { org, list } = await Org.withList(app.t);
    await org.postContact({ email: 'kept@example.com', listIds: [list] }).expect(201);
    const key = await adminKey(org);
    await fc.assert(
      fc.asyncProperty(emailish, fc.option(fc.oneof(jsonValue.map((v) => JSON.stringify(v)), fc.string({ maxLength: 20 }))), fc.dictionary(fc.constantFrom('limit', 'cursor', 'reason', 'x'), fc.string({ maxLength: 30 })), async (email, body, query) => {
        // A lone surrogate has no percent-encoding (encodeURIComponent throws): no client can send it in a path.
        if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(email)) return;
        const path = `/api/v2/contacts/${encodeURIComponent(email)}/erase`;
        const before = await counts(org);
        let req = app.t.http().post(path).set('Authorization', `Bearer ${key}`);
        if (body !== null) req = req.set('Content-Type', 'application/json').send(body);
        const erased = await req;
        expect(erased.status).toBeLessThan(500);
        if (erased.status !== 200) expect(await counts(org)).toEqual(before);

        const lifted = await app.t.http().delete(`/api/v2/suppressions/${encodeURIComponent(email)}`).set('Authorization', `Bearer ${key}`);
        expect(lifted.status).toBeLessThan(500);

        const listed = await org.get('/api/v2/suppressions').query(query);
        expect(listed.status).toBeLessThan(500);
        if (listed.status !== 200) expect(listed.body.error.code).toBe('INVALID_REQUEST');
      }),
      { numRuns: 60 },
    );
    // The contact not named by any generated value is still there.
    expect((await org.read('kept@example.com'))?.email).toBe('kept@example.com');
  });
});
