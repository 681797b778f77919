import { redactEventText } from './event-redaction';
import { renderEvent, type EventContact, type EventData, type EventType } from './event-types';

const uuid = '0b6f8f3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const at = '2026-11-24T10:00:00.000Z';
const email = `o'brien"q"\\b@exämple.com`;
const contact: EventContact = {
  id: 'c-1',
  email,
  listIds: ['l-1'],
  // Keys of different lengths (jsonb would put the short ones first), numbers JSON.stringify writes in exponent form.
  fields: { zzz_long_field_name: 1e21, a: 1e-7, '10': 'integer-like key', '2': -0, mid_key: [1.5, 'x\ny', { b: 1, aa: 2 }], n: null },
  suppressed: { reason: 'bounced' },
  createdAt: at,
  updatedAt: at,
};

/** What renderEvent writes for the event with `data`. */
const rendered = (type: EventType, data: EventData, requestId: string | null = 'req "1" é') => renderEvent(uuid, at, requestId, type, data);

describe('redactEventText (erasure of one stored event text)', () => {
  it('reduces data.contact to its id, in its place, and writes what renderEvent writes for the redacted event', () => {
    const before = rendered('contact.updated', { contact, changedFields: ['a'], addedListIds: ['l-1'] });
    const after = redactEventText(before);
    expect(after).toBe(rendered('contact.updated', { contact: { id: 'c-1' } as EventContact, changedFields: ['a'], addedListIds: ['l-1'] }));
    expect(after).toBe(
      `{"id":"evt_0b6f8f3e1c2d4e5f8a9b0c1d2e3f4a5b","type":"contact.updated","occurredAt":"${at}","requestId":"req \\"1\\" é","data":{"contact":{"id":"c-1"},"changedFields":["a"],"addedListIds":["l-1"]}}`,
    );
    expect(after).not.toContain('exämple');
  });

  it('keeps every other value byte for byte: key order, numbers as JSON.stringify writes them, escapes', () => {
    const data = { listId: 'l-9', contact, note: { zz: 1e21, a: 5e-324, big: 2 ** 53 + 2, s: '\u2028\u0001"\\😀' } };
    const after = redactEventText(rendered('contact.list_removed', data));
    expect(after).toBe(rendered('contact.list_removed', { ...data, contact: { id: 'c-1' } }));
    expect(after).toContain('"data":{"listId":"l-9","contact":{"id":"c-1"},"note":{"zz":1e+21,"a":5e-324,"big":9007199254740994,');
  });

  it('sets data.suppression.email to null, in its place; the reason stays', () => {
    const before = rendered('suppression.created', { suppression: { email, reason: 'complained' } }, null);
    expect(redactEventText(before)).toBe(rendered('suppression.created', { suppression: { email: null, reason: 'complained' } }, null));
  });

  it('leaves an already redacted text as it is', () => {
    const redacted = rendered('contact.deleted', { contact: { id: 'c-1' } as EventContact });
    expect(redactEventText(redacted)).toBe(redacted);
    const suppression = rendered('suppression.deleted', { suppression: { email: null, reason: 'bounced' } });
    expect(redactEventText(suppression)).toBe(suppression);
  });

  it('writes JSON.stringify text from a text PostgreSQL rendered (jsonb spacing, numbers in full), in that text key order', () => {
    const jsonb = '{"id": "evt_1", "type": "contact.created", "occurredAt": "t", "requestId": null, "data": {"contact": {"id": "c-1", "email": "a@b.c", "fields": {"n": 1000000000000000000000, "tiny": 0.0000001}}}}';
    expect(redactEventText(jsonb)).toBe('{"id":"evt_1","type":"contact.created","occurredAt":"t","requestId":null,"data":{"contact":{"id":"c-1"}}}');
  });

  it('refuses a text that is not JSON (the erasure fails and rolls back)', () => {
    expect(() => redactEventText('{"id":')).toThrow(SyntaxError);
  });
});
