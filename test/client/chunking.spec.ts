import fc from 'fast-check';
import { chunkContacts, MAX_BATCH_BYTES, retryAfterMs, type ContactInput } from '../../client/src';

describe('chunkContacts', () => {
  const body = (items: ContactInput[]) => Buffer.byteLength(JSON.stringify({ contacts: items }));

  it('at most 50 rows a batch, in order, covering every contact once', () => {
    const contacts = Array.from({ length: 123 }, (_, i) => ({ email: `c${i}@example.com` }));
    const chunks = chunkContacts(contacts);
    expect(chunks.map((c) => [c.start, c.items.length])).toEqual([[0, 50], [50, 50], [100, 23]]);
    expect(chunks.flatMap((c) => c.items)).toEqual(contacts);
  });

  it('every body stays under 1 MiB, however large the contacts', () => {
    const big = (i: number): ContactInput => ({ email: `b${i}@example.com`, fields: { note: 'é'.repeat(60_000 + i) } });
    const contacts = Array.from({ length: 40 }, (_, i) => big(i));
    const chunks = chunkContacts(contacts);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(body(chunk.items)).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    expect(chunks.flatMap((c) => c.items)).toEqual(contacts);
    // Filled close to the limit: adding the next contact would have passed it.
    expect(body([...chunks[0].items, contacts[chunks[1].start]])).toBeGreaterThan(MAX_BATCH_BYTES);
  });

  it('property: in order, each contact once, ≤ maxRows rows and ≤ maxBytes per batch unless one contact is larger alone', () => {
    const contact = fc.record({ email: fc.emailAddress(), fields: fc.record({ note: fc.string({ maxLength: 400 }) }) });
    fc.assert(
      fc.property(fc.array(contact, { maxLength: 300 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 200, max: 20_000 }), (contacts, maxRows, maxBytes) => {
        const chunks = chunkContacts(contacts, maxRows, maxBytes);
        expect(chunks.flatMap((c) => c.items)).toEqual(contacts);
        let start = 0;
        for (const chunk of chunks) {
          expect(chunk.start).toBe(start);
          start += chunk.items.length;
          expect(chunk.items.length).toBeGreaterThan(0);
          expect(chunk.items.length).toBeLessThanOrEqual(maxRows);
          if (chunk.items.length > 1) expect(body(chunk.items)).toBeLessThanOrEqual(maxBytes);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a contact too large alone goes alone (the service answers it 413)', () => {
    const chunks = chunkContacts([{ email: 'a@example.com' }, { email: 'x@example.com', fields: { n: 'x'.repeat(2_000_000) } }, { email: 'b@example.com' }]);
    expect(chunks.map((c) => c.items.length)).toEqual([1, 1, 1]);
  });
});

describe('retryAfterMs', () => {
  it('Retry-After seconds, then an HTTP date, then the RateLimit header t, else one second', () => {
    expect(retryAfterMs(new Headers({ 'Retry-After': '3', RateLimit: '"org";r=0;t=9' }))).toBe(3000);
    expect(retryAfterMs(new Headers({ 'Retry-After': new Date(10_000).toUTCString() }), 4000)).toBe(6000);
    expect(retryAfterMs(new Headers({ RateLimit: '"org";r=0;t=7' }))).toBe(7000);
    expect(retryAfterMs(new Headers())).toBe(1000);
  });
});
