import { bootApp, expectRequestError, Org, type Res, uniqueEmail } from './helpers';

/**
 * Contract 13 "Listing contacts" and 16 (byte order, limit 1–1000): GET /api/v2/contacts, tried
 * from outside only.
 */
describe('GET /api/v2/contacts', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeEach(async () => ({ org, list } = await Org.withList(app.t)));

  const page = (query = '') => org.get(`/api/v2/contacts${query}`);
  const create = async (emails: string[], listIds = [list]) => {
    for (let i = 0; i < emails.length; i += 50) {
      const res = await org.batch(emails.slice(i, i + 50).map((email) => ({ email, listIds })));
      expect(res.status).toBe(200);
      expect(res.body.summary.failed).toBe(0);
    }
  };
  /** Every page to the end, following nextCursor with the same filters. */
  const walk = async (filters = '', limit = 3): Promise<string[]> => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 1000; pages++) {
      const sep = filters ? '&' : '';
      const res: Res = await page(`?limit=${limit}${sep}${filters}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.contacts.map((c: { email: string }) => c.email));
      cursor = res.body.nextCursor;
      if (cursor === null) return seen;
    }
    throw new Error('the walk did not end');
  };
  const byteOrder = (emails: string[]) => [...emails].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

  it('an organization without contacts: 200 { request_id, contacts: [], nextCursor: null }', async () => {
    const res = await page();
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { request_id: res.headers['x-request-id'], contacts: [], nextCursor: null },
    });
  });

  it('pages in byte order of the normalized email, each contact exactly as GET /contacts/{email} shows it', async () => {
    // Byte order differs from a natural-language collation on punctuation and digits.
    const emails = ['a_b@example.com', 'a.b@example.com', 'ab@example.com', 'a-b@example.com', 'a9@example.com', 'b@example.com', 'a+b@example.com'];
    await org.field('score', 'number');
    await create(emails);
    await org.postContact({ email: 'ab@example.com', listIds: [list], fields: { firstName: 'Ada', score: 3 }, overwrite: true }).expect(200);
    await org.suppress('b@example.com', 'unsubscribed');

    const seen = await walk('', 3);
    expect(seen).toEqual(byteOrder(emails));
    const full = await page('?limit=1000');
    for (const contact of full.body.contacts) {
      const one = await org.getContact(contact.email);
      expect(contact).toEqual(one.body.contact);
    }
    expect(full.body.contacts.find((c: { email: string }) => c.email === 'b@example.com').suppressed).toEqual({ reason: 'unsubscribed' });
  });

  it('limit defaults to 100 and accepts 1 to 1000; nextCursor is null exactly on the last page', async () => {
    const emails = Array.from({ length: 101 }, (_, i) => `u${String(i).padStart(3, '0')}@example.com`);
    await create(emails);
    const first = await page();
    expect(first.body.contacts).toHaveLength(100);
    expect(typeof first.body.nextCursor).toBe('string');
    const rest = await page(`?cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(rest.body.contacts.map((c: { email: string }) => c.email)).toEqual([emails[100]]);
    expect(rest.body.nextCursor).toBeNull();
    expect((await page('?limit=1000')).body.contacts).toHaveLength(101);
    expect((await page('?limit=101')).body.nextCursor).toBeNull();
    expect((await page('?limit=1')).body.contacts).toHaveLength(1);
  });

  it.each(['0', '1001', '-1', '1.5', 'ten', '', '1e2', ' 5'])('limit=%j is 400 INVALID_REQUEST', async (limit) => {
    expectRequestError(await page(`?limit=${encodeURIComponent(limit)}`), 400, 'INVALID_REQUEST');
  });

  it('a repeated or unknown query parameter is 400 INVALID_REQUEST (a misspelt filter never lists everything)', async () => {
    expectRequestError(await page('?limit=1&limit=2'), 400, 'INVALID_REQUEST');
    expectRequestError(await page('?listid=x'), 400, 'INVALID_REQUEST');
  });

  it('listId: members of that list only, an archived list too; unknown or foreign list 404 LIST_NOT_FOUND', async () => {
    const other = await org.list('Other');
    const archived = await org.list('Old', false);
    const inOther = [uniqueEmail('o'), uniqueEmail('o')];
    const inBoth = [uniqueEmail('b')];
    await create([uniqueEmail('m'), uniqueEmail('m')]);
    await create(inOther, [other]);
    await create(inBoth, [list, archived]);
    await app.t.prisma.list.update({ where: { id: archived }, data: { archived: true } }); // archiving is the admin's

    expect(await walk(`listId=${other}`, 1)).toEqual(byteOrder(inOther));
    expect(await walk(`listId=${archived}`)).toEqual(inBoth);
    expectRequestError(await page('?listId=00000000-0000-4000-8000-000000000000'), 404, 'LIST_NOT_FOUND');
    expectRequestError(await page('?listId=not-an-id'), 404, 'LIST_NOT_FOUND');
    const { list: foreign } = await Org.withList(app.t);
    expectRequestError(await page(`?listId=${foreign}`), 404, 'LIST_NOT_FOUND');
  });

  it('listId with the other filters: a foreign list (with members) is 404 LIST_NOT_FOUND, an empty list of ours 200 with none', async () => {
    const { org: owner, list: foreign } = await Org.withList(app.t);
    const theirs = [uniqueEmail('t'), uniqueEmail('t')];
    expect((await owner.batch(theirs.map((email) => ({ email, listIds: [foreign] })))).status).toBe(200);
    await owner.suppress(theirs[0], 'bounced');
    await org.suppress(theirs[0], 'bounced'); // the same address suppressed here too: still not our list
    const empty = await org.list('Empty');
    await create([uniqueEmail('m')]);
    const since = encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString());
    for (const filters of ['', '&suppressed=true', '&suppressed=false', `&updatedSince=${since}`, `&suppressed=true&updatedSince=${since}`]) {
      expectRequestError(await page(`?listId=${foreign}${filters}`), 404, 'LIST_NOT_FOUND');
      const res = await page(`?listId=${empty}${filters}`);
      expect({ filters, status: res.status, contacts: res.body.contacts, nextCursor: res.body.nextCursor }).toEqual({
        filters,
        status: 200,
        contacts: [],
        nextCursor: null,
      });
    }
  });

  it('suppressed=true|false; any other value 400', async () => {
    const plain = [uniqueEmail('p'), uniqueEmail('p')];
    const quiet = [uniqueEmail('q')];
    await create([...plain, ...quiet]);
    await org.suppress(quiet[0], 'bounced');
    await org.suppress(uniqueEmail('no-contact'), 'bounced'); // a suppression without a contact lists nothing
    expect(await walk('suppressed=true')).toEqual(quiet);
    expect(await walk('suppressed=false', 1)).toEqual(byteOrder(plain));
    expectRequestError(await page('?suppressed=yes'), 400, 'INVALID_REQUEST');
    expectRequestError(await page('?suppressed=TRUE'), 400, 'INVALID_REQUEST');
  });

  it('updatedSince: contacts with updatedAt ≥ the instant, any offset; anything else 400', async () => {
    const old = [uniqueEmail('old'), uniqueEmail('old')];
    await create(old);
    const touched = old[1];
    const updated = await org.postContact({ email: touched, listIds: [list], fields: { city: 'Oslo' }, overwrite: true });
    expect(updated.status).toBe(200);
    const updatedAt = (await org.read(touched))!.updatedAt;
    const fresh = [uniqueEmail('new')];
    await create(fresh);

    expect(await walk(`updatedSince=${encodeURIComponent(updatedAt)}`)).toEqual(byteOrder([touched, ...fresh]));
    const later = new Date(Date.parse(updatedAt) + 1).toISOString();
    expect(await walk(`updatedSince=${encodeURIComponent(later)}`)).not.toContain(touched);
    // The same instant with an offset, and with the `+` unencoded (a query string turns it into a space).
    const at = new Date(Date.parse(updatedAt) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await walk(`updatedSince=${encodeURIComponent(at)}`)).toContain(touched);
    expect(await walk(`updatedSince=${at}`)).toContain(touched);
    for (const bad of ['yesterday', '2026-02-30T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00', '2026-01-01T25:00:00Z', '1700000000']) {
      expectRequestError(await page(`?updatedSince=${encodeURIComponent(bad)}`), 400, 'INVALID_REQUEST');
    }
  });

  it('filters combine with AND', async () => {
    const other = await org.list('Other');
    const a = uniqueEmail('and');
    const b = uniqueEmail('and');
    await create([a, b], [list, other]);
    await create([uniqueEmail('x')], [list]);
    await org.suppress(a, 'bounced');
    expect(await walk(`listId=${other}&suppressed=true&updatedSince=2000-01-01T00:00:00Z`)).toEqual([a]);
    expect(await walk(`listId=${other}&suppressed=false`)).toEqual([b]);
  });

  it('a malformed cursor, or one used with other filters, is 400 INVALID_REQUEST; another limit is fine', async () => {
    await create([uniqueEmail('c'), uniqueEmail('c'), uniqueEmail('c')]);
    const first = await page(`?limit=1&listId=${list}`);
    const cursor = encodeURIComponent(first.body.nextCursor);
    expect((await page(`?limit=2&listId=${list}&cursor=${cursor}`)).status).toBe(200);
    expectRequestError(await page(`?cursor=${cursor}`), 400, 'INVALID_REQUEST');
    expectRequestError(await page(`?listId=${list}&suppressed=false&cursor=${cursor}`), 400, 'INVALID_REQUEST');
    for (const bad of ['x', 'not a cursor', Buffer.from('{"v":1}').toString('base64url'), '%%%', first.body.nextCursor.slice(0, -2)]) {
      expectRequestError(await page(`?listId=${list}&cursor=${encodeURIComponent(bad)}`), 400, 'INVALID_REQUEST');
    }
  });

  it('a cursor of one organization shows nothing of another', async () => {
    await create([uniqueEmail('mine'), uniqueEmail('mine')]);
    const { org: other } = await Org.withList(app.t);
    const first = await page('?limit=1');
    const res = await other.get(`/api/v2/contacts?cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(res.status).toBe(200);
    expect(res.body.contacts).toEqual([]);
  });

  it('paging to the end visits every contact that existed for the whole walk exactly once, whatever happens meanwhile', async () => {
    const stable = Array.from({ length: 60 }, (_, i) => `s${String(i * 7).padStart(4, '0')}@example.com`);
    const doomed = Array.from({ length: 30 }, (_, i) => `s${String(i * 7 + 3).padStart(4, '0')}@example.com`);
    await create([...stable, ...doomed]);
    let stop = false;
    // Inserts and deletes all over the key range while the walk runs.
    const churn = (async () => {
      for (let i = 0; !stop && i < 200; i++) {
        const email = `s${String((i * 37) % 420 + 1).padStart(4, '0')}x${i}@example.com`;
        await org.postContact({ email, listIds: [list] });
        const victim = doomed[i % doomed.length];
        await app.t.http().delete(`/api/v2/contacts/${encodeURIComponent(victim)}`).set('Authorization', `Bearer ${org.key}`);
      }
    })();
    const seen = await walk('', 4);
    stop = true;
    await churn;
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((email) => stable.includes(email))).toEqual(stable);
    expect(seen).toEqual(byteOrder(seen));
  });

  it('needs the API key', async () => {
    const res = await app.t.http().get('/api/v2/contacts');
    expectRequestError(res, 401, 'INVALID_API_KEY');
  });
});
