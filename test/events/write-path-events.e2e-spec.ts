import { bootApp, Org, uniqueEmail } from '../contract/helpers';
import { adminKey, suppressMany, unsuppress } from '../contract/lifecycle-helpers';
import { eventsOf, withEventsRefused } from './event-rows';

/**
 * Contract section 14: every change commits with its event, in the same transaction, on every write
 * path other than the POST contacts pipeline (list removal, delete, suppressions, lists, fields; the
 * admin command line and erasure have files of their own). Each path: the answer's change and its
 * event are both there after a 2xx; a refused event insert (a real error inside the transaction)
 * leaves neither; requests that change nothing (unchanged rows, request-level errors) write none.
 */
describe('change events of the lifecycle, list and field endpoints', () => {
  const app = bootApp();

  /** An organization with lists Main and Other, and helpers calling the API with a write key or an admin key. */
  async function setup() {
    const { org, list } = await Org.withList(app.t);
    const other = await org.list('Other');
    const admin = await adminKey(org);
    const as = (key: string) => (method: 'post' | 'patch' | 'delete', path: string, body?: unknown) => {
      const req = app.t.http()[method](path).set('Authorization', `Bearer ${key}`);
      return body === undefined ? req : req.set('Content-Type', 'application/json').send(JSON.stringify(body));
    };
    return { org, list, other, write: as(org.key), admin: as(admin), events: () => eventsOf(app.t, org.id) };
  }

  async function contactIn(org: Org, lists: string[], fields: Record<string, unknown> = {}) {
    const email = uniqueEmail('ev');
    await org.postContact({ email, listIds: lists, fields }).expect(201);
    return email;
  }

  describe('list removal', () => {
    it('each removed row writes contact.list_removed (the contact after, the list id), in row order; other rows write none', async () => {
      const c = await setup();
      const [a, b] = [await contactIn(c.org, [c.list, c.other], { firstName: 'Ada' }), await contactIn(c.org, [c.list, c.other])];
      const only = await contactIn(c.org, [c.list]);
      const notMember = await contactIn(c.org, [c.other]);
      const before = await c.events();

      const res = await c.write('post', `/api/v2/lists/${c.list}/contacts/remove`, { emails: [b, only, 'nobody@example.com', notMember, a, 'bad', b] });
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['removed', 'failed', 'failed', 'unchanged', 'removed', 'failed', 'failed']);
      const written = (await c.events()).slice(before.length);
      const [afterB, afterA] = [await c.org.read(b), await c.org.read(a)];
      expect(afterA!.listIds).toEqual([c.other]);
      expect(written).toEqual([
        { type: 'contact.list_removed', requestId: res.body.request_id, contactId: afterB!.id, email: b, data: { contact: afterB, listId: c.list } },
        { type: 'contact.list_removed', requestId: res.body.request_id, contactId: afterA!.id, email: a, data: { contact: afterA, listId: c.list } },
      ]);

      // The same request again changes nothing: no event.
      const again = await c.write('post', `/api/v2/lists/${c.list}/contacts/remove`, { emails: [b, a] });
      expect(again.body.results.map((r: { status: string }) => r.status)).toEqual(['unchanged', 'unchanged']);
      expect(await c.events()).toHaveLength(before.length + 2);
    });

    it('the single removal: removed writes one event; unchanged, 409 LAST_LIST_MEMBERSHIP and 404 write none', async () => {
      const c = await setup();
      const email = await contactIn(c.org, [c.list, c.other]);
      const before = (await c.events()).length;
      const path = (list: string, address: string) => `/api/v2/lists/${list}/contacts/${encodeURIComponent(address)}`;

      const removed = await c.write('delete', path(c.other, email));
      expect(removed.body.status).toBe('removed');
      const events = await c.events();
      expect(events.slice(before)).toEqual([
        { type: 'contact.list_removed', requestId: removed.body.request_id, contactId: expect.any(String), email, data: { contact: await c.org.read(email), listId: c.other } },
      ]);

      expect((await c.write('delete', path(c.other, email))).body.status).toBe('unchanged');
      expect((await c.write('delete', path(c.list, email))).status).toBe(409);
      expect((await c.write('delete', path(c.list, 'nobody@example.com'))).status).toBe(404);
      expect(await c.events()).toHaveLength(before + 1);
    });

    it('a failed event insert rolls the removal back: neither the change nor the event', async () => {
      const c = await setup();
      const emails = [await contactIn(c.org, [c.list, c.other]), await contactIn(c.org, [c.list, c.other])];
      const before = await c.events();
      const res = await withEventsRefused(app.t, c.org.id, () => c.write('post', `/api/v2/lists/${c.other}/contacts/remove`, { emails }));
      expect(res.status).toBeGreaterThanOrEqual(500);
      for (const email of emails) expect((await c.org.read(email))!.listIds.sort()).toEqual([c.list, c.other].sort());
      expect(await c.events()).toEqual(before);
    });
  });

  describe('delete', () => {
    it('writes contact.deleted with the contact as it was; a repeated delete (404) writes none', async () => {
      const c = await setup();
      const email = await contactIn(c.org, [c.list, c.other], { city: 'Oslo' });
      await c.org.suppress(email, 'bounced');
      const shown = await c.org.read(email);
      const before = (await c.events()).length;

      const res = await c.write('delete', `/api/v2/contacts/${encodeURIComponent(email)}`);
      expect(res.status).toBe(200);
      expect((await c.events()).slice(before)).toEqual([
        { type: 'contact.deleted', requestId: res.body.request_id, contactId: shown!.id, email, data: { contact: shown } },
      ]);
      expect(shown!.suppressed).toEqual({ reason: 'bounced' });

      expect((await c.write('delete', `/api/v2/contacts/${encodeURIComponent(email)}`)).status).toBe(404);
      expect(await c.events()).toHaveLength(before + 1);
    });

    it('racing deletes of one contact: one 200, the others 404, one contact.deleted', async () => {
      const c = await setup();
      const email = await contactIn(c.org, [c.list]);
      const before = (await c.events()).length;
      const answers = await Promise.all(Array.from({ length: 5 }, () => c.write('delete', `/api/v2/contacts/${encodeURIComponent(email)}`)));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 404, 404, 404, 404]);
      expect((await c.events()).slice(before).map((event) => event.type)).toEqual(['contact.deleted']);
    });

    it('a failed event insert rolls the delete back: the contact stays', async () => {
      const c = await setup();
      const email = await contactIn(c.org, [c.list]);
      const before = await c.events();
      const res = await withEventsRefused(app.t, c.org.id, () => c.write('delete', `/api/v2/contacts/${encodeURIComponent(email)}`));
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(await c.org.read(email)).not.toBeNull();
      expect(await c.events()).toEqual(before);
    });
  });

  describe('suppressions', () => {
    it('each new suppression writes suppression.created (and no contact event); already suppressed rows write none', async () => {
      const c = await setup();
      const contact = await contactIn(c.org, [c.list]);
      const fresh = uniqueEmail('nocontact');
      const kept = uniqueEmail('kept');
      await c.org.suppress(kept, 'complained');
      const before = (await c.events()).length;

      const res = await suppressMany(c.org, [
        { email: fresh, reason: 'bounced' },
        { email: kept, reason: 'bounced' },
        { email: contact.toUpperCase(), reason: 'unsubscribed' },
        { email: fresh, reason: 'complained' },
        { email: 'not an email', reason: 'bounced' },
      ]);
      expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['suppressed', 'unchanged', 'suppressed', 'failed', 'failed']);
      const id = (await c.org.read(contact))!.id;
      expect((await c.events()).slice(before)).toEqual([
        { type: 'suppression.created', requestId: res.body.request_id, contactId: null, email: fresh, data: { suppression: { email: fresh, reason: 'bounced' } } },
        { type: 'suppression.created', requestId: res.body.request_id, contactId: id, email: contact, data: { suppression: { email: contact, reason: 'unsubscribed' } } },
      ]);

      const again = await suppressMany(c.org, [{ email: fresh, reason: 'complained' }, { email: contact, reason: 'bounced' }]);
      expect(again.body.results.map((r: { status: string }) => r.status)).toEqual(['unchanged', 'unchanged']);
      expect(await c.events()).toHaveLength(before + 2);
    });

    it('lifting writes suppression.deleted; 404 (not suppressed) and 409 (complained) write none', async () => {
      const c = await setup();
      const [lifted, complained] = [uniqueEmail('lift'), uniqueEmail('complained')];
      await c.org.suppress(lifted, 'unsubscribed');
      await c.org.suppress(complained, 'complained');
      const before = (await c.events()).length;

      const res = await unsuppress(c.org, lifted);
      expect(res.status).toBe(200);
      expect((await c.events()).slice(before)).toEqual([
        { type: 'suppression.deleted', requestId: res.body.request_id, contactId: null, email: lifted, data: { suppression: { email: lifted, reason: 'unsubscribed' } } },
      ]);
      expect((await unsuppress(c.org, lifted)).status).toBe(404);
      expect((await unsuppress(c.org, complained)).status).toBe(409);
      expect(await c.events()).toHaveLength(before + 1);
    });

    it('a failed event insert rolls suppressing and lifting back', async () => {
      const c = await setup();
      const [fresh, lifted] = [uniqueEmail('fresh'), uniqueEmail('lifted')];
      await c.org.suppress(lifted, 'bounced');
      const before = await c.events();
      await withEventsRefused(app.t, c.org.id, async () => {
        expect((await suppressMany(c.org, [{ email: fresh, reason: 'bounced' }])).status).toBeGreaterThanOrEqual(500);
        expect((await unsuppress(c.org, lifted)).status).toBeGreaterThanOrEqual(500);
      });
      const listed = (await c.org.get('/api/v2/suppressions')).body.suppressions.map((s: { email: string }) => s.email);
      expect(listed).toEqual([lifted]);
      expect(await c.events()).toEqual(before);
    });
  });

  describe('lists', () => {
    it('POST writes list.created, PATCH list.updated (the list after); a PATCH that changes nothing and a 404 write none', async () => {
      const c = await setup();
      const before = (await c.events()).length;
      const created = await c.admin('post', '/api/v2/lists', { name: 'Weekly' });
      expect(created.status).toBe(201);
      const { id } = created.body.list;
      const renamed = await c.admin('patch', `/api/v2/lists/${id}`, { name: 'Monthly', archived: true });
      expect(renamed.status).toBe(200);
      expect((await c.events()).slice(before)).toEqual([
        { type: 'list.created', requestId: created.body.request_id, contactId: null, email: null, data: { list: { id, name: 'Weekly', archived: false } } },
        { type: 'list.updated', requestId: renamed.body.request_id, contactId: null, email: null, data: { list: { id, name: 'Monthly', archived: true } } },
      ]);

      expect((await c.admin('patch', `/api/v2/lists/${id}`, { archived: true, name: 'Monthly' })).status).toBe(200);
      expect((await c.admin('patch', `/api/v2/lists/${id}`, { archived: true })).body.list).toEqual({ id, name: 'Monthly', archived: true });
      expect((await c.admin('patch', '/api/v2/lists/00000000-0000-0000-0000-000000000000', { name: 'x' })).status).toBe(404);
      expect((await c.admin('post', '/api/v2/lists', { name: '' })).status).toBe(400);
      expect(await c.events()).toHaveLength(before + 2);
    });

    it('racing PATCHes sending the same change: one list.updated (the others find nothing to change)', async () => {
      const c = await setup();
      const before = (await c.events()).length;
      const answers = await Promise.all(Array.from({ length: 5 }, () => c.admin('patch', `/api/v2/lists/${c.other}`, { name: 'Renamed' })));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
      expect((await c.events()).slice(before).map((event) => [event.type, event.data])).toEqual([
        ['list.updated', { list: { id: c.other, name: 'Renamed', archived: false } }],
      ]);
    });

    it('a failed event insert rolls list changes back', async () => {
      const c = await setup();
      const before = await c.events();
      await withEventsRefused(app.t, c.org.id, async () => {
        expect((await c.admin('post', '/api/v2/lists', { name: 'Never' })).status).toBeGreaterThanOrEqual(500);
        expect((await c.admin('patch', `/api/v2/lists/${c.other}`, { name: 'Renamed' })).status).toBeGreaterThanOrEqual(500);
      });
      const lists = (await c.org.get('/api/v2/lists')).body.lists.map((l: { name: string }) => l.name);
      expect(lists).toEqual(['Main', 'Other']);
      expect(await c.events()).toEqual(before);
    });
  });

  describe('custom fields', () => {
    it('POST writes field.created, PATCH field.updated (the field as GET /fields shows it); no-op PATCH, 409 and 404 write none', async () => {
      const c = await setup();
      const before = (await c.events()).length;
      const created = await c.admin('post', '/api/v2/fields', { key: 'plan', type: 'select', options: ['free', 'pro'], defaultValue: 'free' });
      expect(created.status).toBe(201);
      const updated = await c.admin('patch', '/api/v2/fields/plan', { options: ['free', 'pro', 'team'], required: true });
      expect(updated.status).toBe(200);
      const fields = (await c.org.get('/api/v2/fields')).body.custom;
      expect((await c.events()).slice(before)).toEqual([
        {
          type: 'field.created',
          requestId: created.body.request_id,
          contactId: null,
          email: null,
          data: { field: { key: 'plan', type: 'select', required: false, defaultValue: 'free', options: ['free', 'pro'] } },
        },
        { type: 'field.updated', requestId: updated.body.request_id, contactId: null, email: null, data: { field: fields[0] } },
      ]);

      expect((await c.admin('patch', '/api/v2/fields/plan', { required: true, defaultValue: 'free' })).status).toBe(200);
      expect((await c.admin('post', '/api/v2/fields', { key: 'plan', type: 'text' })).status).toBe(409);
      expect((await c.admin('patch', '/api/v2/fields/nope', { required: true })).status).toBe(404);
      expect((await c.admin('patch', '/api/v2/fields/plan', { options: ['free'] })).status).toBe(400);
      expect(await c.events()).toHaveLength(before + 2);
    });

    it('a failed event insert rolls field changes back', async () => {
      const c = await setup();
      await c.org.field('tier', 'number');
      const before = await c.events();
      await withEventsRefused(app.t, c.org.id, async () => {
        expect((await c.admin('post', '/api/v2/fields', { key: 'never', type: 'text' })).status).toBeGreaterThanOrEqual(500);
        expect((await c.admin('patch', '/api/v2/fields/tier', { required: true })).status).toBeGreaterThanOrEqual(500);
      });
      expect((await c.org.get('/api/v2/fields')).body.custom).toEqual([{ key: 'tier', type: 'number', required: false, defaultValue: null, options: null }]);
      expect(await c.events()).toEqual(before);
    });
  });
});
