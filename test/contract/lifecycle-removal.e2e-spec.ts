import { bootApp, expectRequestError, failedRow, Org, uniqueEmail } from './helpers';

/** Contract 13 "Removing from lists", "Deleting and erasing" (delete) and 16 (archived lists), from outside. */
describe('removing contacts from lists and deleting contacts', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  let other: string;
  beforeEach(async () => {
    ({ org, list } = await Org.withList(app.t));
    other = await org.list('Other');
  });

  const del = (path: string, key = org.key) => app.t.http().delete(path).set('Authorization', `Bearer ${key}`);
  const removeOne = (listId: string, email: string) => del(`/api/v2/lists/${listId}/contacts/${encodeURIComponent(email)}`);
  const removeBatch = (listId: string, body: unknown) => org.postRaw(`/api/v2/lists/${listId}/contacts/remove`, JSON.stringify(body));
  const deleteContact = (email: string) => del(`/api/v2/contacts/${encodeURIComponent(email)}`);
  const make = async (email: string, listIds: string[]) => {
    const res = await org.postContact({ email, listIds });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const archive = (listId: string) => app.t.prisma.list.update({ where: { id: listId }, data: { archived: true } });

  describe('DELETE /api/v2/lists/{listId}/contacts/{email}', () => {
    it('removes the membership: 200 { request_id, email, listId, status: "removed" }, then "unchanged"', async () => {
      const email = uniqueEmail();
      await make(email, [list, other]);
      const before = await org.read(email);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const res = await removeOne(other, ` ${email.toUpperCase()} `);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { request_id: res.headers['x-request-id'], email, listId: other, status: 'removed' },
      });
      const after = await org.read(email);
      expect(after!.listIds).toEqual([list]);
      expect(Date.parse(after!.updatedAt)).toBeGreaterThan(Date.parse(before!.updatedAt)); // listIds changed
      const again = await removeOne(other, email);
      expect({ status: again.status, body: again.body }).toEqual({
        status: 200,
        body: { request_id: again.headers['x-request-id'], email, listId: other, status: 'unchanged' },
      });
      expect((await org.read(email))!.updatedAt).toBe(after!.updatedAt);
    });

    it('the last membership is 409 LAST_LIST_MEMBERSHIP and stays', async () => {
      const email = uniqueEmail();
      await make(email, [list]);
      expectRequestError(await removeOne(list, email), 409, 'LAST_LIST_MEMBERSHIP');
      expect((await org.read(email))!.listIds).toEqual([list]);
    });

    it('a membership of an archived list counts for "at least one list" and can be removed', async () => {
      const a = uniqueEmail();
      await make(a, [list, other]);
      await archive(other);
      expect((await removeOne(list, a)).body.status).toBe('removed');
      expectRequestError(await removeOne(other, a), 409, 'LAST_LIST_MEMBERSHIP');
      const c = uniqueEmail();
      const third = await org.list('Third');
      await make(c, [list, third]);
      await archive(third);
      expect((await removeOne(third, c)).body.status).toBe('removed');
      expect((await org.read(c))!.listIds).toEqual([list]);
    });

    it('unknown or foreign list: 404 LIST_NOT_FOUND (before the contact); unknown or invalid email: 404 CONTACT_NOT_FOUND', async () => {
      const email = uniqueEmail();
      await make(email, [list, other]);
      const { org: stranger, list: foreign } = await Org.withList(app.t);
      expectRequestError(await removeOne(foreign, email), 404, 'LIST_NOT_FOUND');
      expectRequestError(await removeOne('00000000-0000-4000-8000-000000000000', 'nobody@example.com'), 404, 'LIST_NOT_FOUND');
      expectRequestError(await removeOne(list, 'nobody@example.com'), 404, 'CONTACT_NOT_FOUND');
      expectRequestError(await removeOne(list, 'not an email'), 404, 'CONTACT_NOT_FOUND');
      // Another organization's key sees neither the list nor the contact.
      expectRequestError(await del(`/api/v2/lists/${other}/contacts/${encodeURIComponent(email)}`, stranger.key), 404, 'LIST_NOT_FOUND');
      expect((await org.read(email))!.listIds.sort()).toEqual([list, other].sort());
    });
  });

  describe('POST /api/v2/lists/{listId}/contacts/remove', () => {
    it('one result per row in order: removed, unchanged, CONTACT_NOT_FOUND, LAST_LIST_MEMBERSHIP, INVALID_EMAIL, DUPLICATE_IN_REQUEST', async () => {
      const removed = uniqueEmail('r');
      const notMember = uniqueEmail('n');
      const last = uniqueEmail('l');
      await make(removed, [list, other]);
      await make(notMember, [list]);
      await make(last, [other]);
      const res = await removeBatch(other, {
        emails: [removed.toUpperCase(), notMember, 'ghost@example.com', last, 'nope', 42, null, ` ${removed} `],
      });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: {
          request_id: res.headers['x-request-id'],
          results: [
            { index: 0, email: removed, status: 'removed' },
            { index: 1, email: notMember, status: 'unchanged' },
            failedRow(2, 'CONTACT_NOT_FOUND', 'ghost@example.com'),
            failedRow(3, 'LAST_LIST_MEMBERSHIP', last),
            failedRow(4, 'INVALID_EMAIL', 'nope'),
            failedRow(5, 'INVALID_EMAIL', null),
            failedRow(6, 'INVALID_EMAIL', null),
            failedRow(7, 'DUPLICATE_IN_REQUEST', removed),
          ],
        },
      });
      expect((await org.read(removed))!.listIds).toEqual([list]);
      expect((await org.read(last))!.listIds).toEqual([other]);
    });

    it('50 emails at once; all removals in one answer', async () => {
      const emails = Array.from({ length: 50 }, () => uniqueEmail('fifty'));
      const made = await org.batch(emails.map((email) => ({ email, listIds: [list, other] })));
      expect(made.body.summary.created).toBe(50);
      const res = await removeBatch(other, { emails });
      expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(Array(50).fill('removed'));
      const members = await org.get(`/api/v2/contacts?listId=${other}`);
      expect(members.body.contacts).toEqual([]);
    });

    it.each([
      ['no body key', {}],
      ['emails null', { emails: null }],
      ['emails not an array', { emails: 'a@example.com' }],
      ['emails empty', { emails: [] }],
      ['an unknown key', { emails: ['a@example.com'], listId: 'x' }],
      ['an array body', ['a@example.com']],
    ])('%s: 400 INVALID_REQUEST, nothing removed', async (_, body) => {
      const email = uniqueEmail();
      await make(email, [list, other]);
      expectRequestError(await removeBatch(other, body), 400, 'INVALID_REQUEST');
      expect((await org.read(email))!.listIds).toHaveLength(2);
    });

    it('more than 50 emails: 400 BATCH_LIMIT_EXCEEDED whatever they hold, nothing removed', async () => {
      const email = uniqueEmail();
      await make(email, [list, other]);
      expectRequestError(await removeBatch(other, { emails: [email, ...Array(50).fill(7)] }), 400, 'BATCH_LIMIT_EXCEEDED');
      expect((await org.read(email))!.listIds).toHaveLength(2);
    });

    it('unknown or foreign list: 404 LIST_NOT_FOUND; malformed JSON 400', async () => {
      const { list: foreign } = await Org.withList(app.t);
      expectRequestError(await removeBatch(foreign, { emails: ['a@example.com'] }), 404, 'LIST_NOT_FOUND');
      expectRequestError(await org.postRaw(`/api/v2/lists/${list}/contacts/remove`, '{"emails": ['), 400, 'INVALID_REQUEST');
    });
  });

  describe('DELETE /api/v2/contacts/{email}', () => {
    it('removes the contact and its memberships: 200 { request_id, email, status: "deleted" }', async () => {
      const email = uniqueEmail();
      await make(email, [list, other]);
      const res = await deleteContact(` ${email.toUpperCase()}`);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { request_id: res.headers['x-request-id'], email, status: 'deleted' },
      });
      expect(await org.read(email)).toBeNull();
      expect((await org.get(`/api/v2/contacts?listId=${other}`)).body.contacts).toEqual([]);
      expectRequestError(await deleteContact(email), 404, 'CONTACT_NOT_FOUND');
      // Created again, it is a new contact with only the lists given now.
      await make(email, [list]);
      expect((await org.read(email))!.listIds).toEqual([list]);
    });

    it('unknown, invalid or another organization’s email: 404 CONTACT_NOT_FOUND', async () => {
      expectRequestError(await deleteContact('nobody@example.com'), 404, 'CONTACT_NOT_FOUND');
      expectRequestError(await deleteContact('not-an-email'), 404, 'CONTACT_NOT_FOUND');
      const email = uniqueEmail();
      await make(email, [list]);
      const { org: stranger } = await Org.withList(app.t);
      expectRequestError(await del(`/api/v2/contacts/${encodeURIComponent(email)}`, stranger.key), 404, 'CONTACT_NOT_FOUND');
      expect(await org.read(email)).not.toBeNull();
    });

    it('its suppression stays: a later create is 409 SUPPRESSED_EMAIL without overwrite', async () => {
      const email = uniqueEmail();
      await make(email, [list]);
      await org.suppress(email, 'complained');
      expect((await deleteContact(email)).status).toBe(200);
      const again = await org.postContact({ email, listIds: [list] });
      expect([again.status, again.body.code, again.body.suppressionReason]).toEqual([409, 'SUPPRESSED_EMAIL', 'complained']);
      const forced = await org.postContact({ email, listIds: [list], overwrite: true });
      expect(forced.status).toBe(201);
      expect((await org.read(email))!.suppressed).toEqual({ reason: 'complained' });
    });

    it('DELETE /api/v2/contacts/batch is an unknown route (404 NOT_FOUND), not a contact named "batch"', async () => {
      expectRequestError(await deleteContact('batch'), 404, 'NOT_FOUND');
    });
  });
});
