import { renderEvent, renderEventAroundContact, type EventContact } from './event-types';

describe('renderEventAroundContact', () => {
  const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const at = '2026-11-24T10:00:00.000Z';
  const contact: EventContact = {
    id: 'c-1',
    email: 'a"b@example.com',
    listIds: ['l-1'],
    fields: { note: 'tab\there', score: 1.5 },
    suppressed: null,
    createdAt: at,
    updatedAt: at,
  };

  it('writes, around the contact text, what renderEvent writes for the event with the contact first in data', () => {
    const text = JSON.stringify(contact);
    const created = renderEventAroundContact(uuid, at, 'req "1" é', 'contact.created', {});
    expect(created.head + text + created.tail).toBe(renderEvent(uuid, at, 'req "1" é', 'contact.created', { contact }));
    const rest = { changedFields: ['note'], addedListIds: ['l-"2"'] };
    const updated = renderEventAroundContact(uuid, at, null, 'contact.updated', rest);
    expect(updated.head + text + updated.tail).toBe(renderEvent(uuid, at, null, 'contact.updated', { contact, ...rest }));
    expect(updated.tail).toBe(',"changedFields":["note"],"addedListIds":["l-\\"2\\""]}}');
  });
});
