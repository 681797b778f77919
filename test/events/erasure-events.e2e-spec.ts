import { bootApp, Org, uniqueEmail } from '../contract/helpers';
import { erase, suppressMany, unsuppress } from '../contract/lifecycle-helpers';
import { eventsOf, withEventsRefused } from './event-rows';

/**
 * Erasure and change events (contract sections 13, 14, 16): every earlier event of the address
 * stays in the feed without it (events.email NULL, data.contact reduced to { id },
 * data.suppression.email null), the answer counts them in `eventsRedacted`, and `contact.erased`
 * (only the contact's id) is written in the same transaction, only when a contact existed.
 */
describe('erase redacts the address from every event and writes contact.erased', () => {
  const app = bootApp();

  /** Events of the whole table whose text holds the address, in any letter case. */
  async function eventsHolding(needle: string): Promise<number> {
    const [row] = await app.t.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM events WHERE (to_jsonb(events.*))::text ILIKE '%' || $1 || '%'`,
      needle,
    );
    return row.n;
  }

  it('no event anywhere still holds the address; the events stay, counted in eventsRedacted', async () => {
    const { org, list } = await Org.withList(app.t);
    const other = await org.list('Other');
    const email = uniqueEmail('Erase.Events');
    const address = email.toLowerCase();
    await org.postContact({ email, listIds: [list, other], fields: { firstName: 'Ada' } }).expect(201);
    const id = (await org.read(address))!.id;
    await org.t.http().delete(`/api/v2/lists/${other}/contacts/${encodeURIComponent(address)}`).set('Authorization', `Bearer ${org.key}`).expect(200);
    await suppressMany(org, [{ email, reason: 'complained' }]).expect(200);
    // Another organization's events of the same address are its own: untouched.
    const stranger = await Org.withList(app.t);
    await suppressMany(stranger.org, [{ email, reason: 'bounced' }]).expect(200);

    const before = await eventsOf(app.t, org.id);
    const holding = before.filter((event) => JSON.stringify(event).includes(address));
    expect(holding.length).toBeGreaterThanOrEqual(2); // list_removed and suppression.created at least (and the POST's own, if any)
    expect(await eventsHolding(address)).toBe(holding.length + 1);

    const res = await erase(org, email);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ contactDeleted: true, suppressionKept: true, eventsRedacted: holding.length });

    expect(await eventsHolding(address)).toBe(1); // the other organization's
    const after = await eventsOf(app.t, org.id);
    expect(after).toHaveLength(before.length + 1);
    expect(after.slice(0, before.length).map((event) => event.type)).toEqual(before.map((event) => event.type));
    const removed = after.find((event) => event.type === 'contact.list_removed');
    expect(removed).toEqual({ type: 'contact.list_removed', requestId: expect.any(String), contactId: id, email: null, data: { contact: { id }, listId: other } });
    const suppressed = after.find((event) => event.type === 'suppression.created');
    expect(suppressed).toMatchObject({ email: null, data: { suppression: { email: null, reason: 'complained' } } });
    expect(after[after.length - 1]).toEqual({ type: 'contact.erased', requestId: res.body.request_id, contactId: id, email: null, data: { contact: { id } } });

    // Again: nothing left to redact, no contact to announce.
    const again = await erase(org, email);
    expect(again.body).toMatchObject({ contactDeleted: false, eventsRedacted: 0 });
    expect(await eventsOf(app.t, org.id)).toEqual(after);
  });

  it('an address that only had a suppression: its events are redacted, no contact.erased; lifting the hashed suppression names no address', async () => {
    const { org } = await Org.withList(app.t);
    const email = uniqueEmail('only-suppressed');
    await suppressMany(org, [{ email, reason: 'bounced' }]).expect(200);
    const res = await erase(org, email);
    expect(res.body).toMatchObject({ contactDeleted: false, suppressionKept: true, eventsRedacted: 1 });
    const lifted = await unsuppress(org, email);
    expect(lifted.status).toBe(200);
    expect(await eventsHolding(email)).toBe(0);
    expect((await eventsOf(app.t, org.id)).map((event) => [event.type, event.email, event.data])).toEqual([
      ['suppression.created', null, { suppression: { email: null, reason: 'bounced' } }],
      ['suppression.deleted', null, { suppression: { email: null, reason: 'bounced' } }],
    ]);
  });

  it('a failed contact.erased insert rolls the whole erasure back: contact and unredacted events stay', async () => {
    const { org, list } = await Org.withList(app.t);
    const email = uniqueEmail('rollback');
    await org.postContact({ email, listIds: [list] }).expect(201);
    await suppressMany(org, [{ email, reason: 'bounced' }]).expect(200);
    const before = await eventsOf(app.t, org.id);
    const res = await withEventsRefused(app.t, org.id, () => erase(org, email));
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(await org.read(email)).not.toBeNull();
    expect(await eventsOf(app.t, org.id)).toEqual(before);
  });
});
