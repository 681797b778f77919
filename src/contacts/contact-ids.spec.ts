import { newContactId } from './contact-ids';

describe('newContactId', () => {
  it('is a UUID of version 7 and RFC variant, its first 48 bits the time in milliseconds', () => {
    const at = Date.UTC(2026, 11, 6, 22, 30, 0, 123);
    const id = newContactId(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  it('ascends with time in byte order, and differs within one millisecond', () => {
    const earlier = newContactId(1_700_000_000_000);
    const later = newContactId(1_700_000_000_001);
    expect(Buffer.compare(Buffer.from(earlier), Buffer.from(later))).toBe(-1);
    const same = new Set(Array.from({ length: 1000 }, () => newContactId(1_700_000_000_000)));
    expect(same.size).toBe(1000);
  });
});
