/**
 * Contract section 14 (and 16): GET /api/v2/events, the events of the POST endpoints. Black box:
 * everything through HTTP, but for the organizations' setup and, for retention, running the sweep
 * and ageing the events.
 */
import { EventsSweeper } from '../../src/events/events.sweeper';
import { ROOM_FOR_LOAD, useTestApp } from '../utils/test-app';
import { Org, bootApp, expectRequestError, type Res, UUID_RE, uniqueEmail } from './helpers';

const EVENT_ID = /^evt_[0-9a-f]{32}$/;

interface FeedEvent {
  id: string;
  type: string;
  occurredAt: string;
  requestId: string | null;
  data: Record<string, unknown>;
}

function feed(org: Org, query = ''): Promise<Res> {
  return org.get(`/api/v2/events${query}`);
}

/** Every event after `after` (from the start when undefined), following nextCursor to an empty page. */
async function readAll(org: Org, options: { after?: string; limit?: number; types?: string } = {}): Promise<{ events: FeedEvent[]; cursor: string }> {
  const events: FeedEvent[] = [];
  let after = options.after;
  for (;;) {
    const params = new URLSearchParams();
    if (after !== undefined) params.set('after', after);
    if (options.limit !== undefined) params.set('limit', String(options.limit));
    if (options.types !== undefined) params.set('types', options.types);
    const res = await feed(org, `?${params.toString()}`);
    expect(res.status).toBe(200);
    events.push(...res.body.events);
    if (res.body.events.length === 0) return { events, cursor: res.body.nextCursor };
    after = res.body.nextCursor;
  }
}

describe('GET /api/v2/events', () => {
  // One test races 24 requests over overlapping emails: under CI's load their lock and pool waits can
  // pass the default time-outs (a 503 where the events of the race are what is tested): ROOM_FOR_LOAD.
  const app = bootApp(ROOM_FOR_LOAD);
  let org: Org;
  let list: string;
  beforeEach(async () => {
    ({ org, list } = await Org.withList(app.t));
  });

  it('answers { request_id, events, nextCursor } with each event as { id, type, occurredAt, requestId, data }', async () => {
    const email = uniqueEmail();
    const created = await org.postContact({ email, listIds: [list], fields: { firstName: 'Ada' } });
    expect(created.status).toBe(201);
    const res = await feed(org);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ request_id: res.headers['x-request-id'], events: [expect.any(Object)], nextCursor: expect.any(String) });
    expect(res.headers['x-request-id']).toMatch(UUID_RE);
    const [event] = res.body.events as FeedEvent[];
    expect(event).toEqual({
      id: expect.stringMatching(EVENT_ID),
      type: 'contact.created',
      occurredAt: expect.any(String),
      requestId: created.body.request_id,
      data: { contact: await org.read(email) },
    });
    expect(new Date(event.occurredAt).toISOString()).toBe(event.occurredAt);
  });

  it('an empty feed answers no events and a string cursor, which later yields what committed since', async () => {
    const empty = await feed(org);
    expect(empty.status).toBe(200);
    expect(empty.body.events).toEqual([]);
    expect(typeof empty.body.nextCursor).toBe('string');

    const again = await feed(org, `?after=${empty.body.nextCursor}`);
    expect(again.body).toEqual({ request_id: expect.any(String), events: [], nextCursor: empty.body.nextCursor });

    const email = uniqueEmail();
    expect((await org.postContact({ email, listIds: [list] })).status).toBe(201);
    const later = await feed(org, `?after=${empty.body.nextCursor}`);
    expect(later.body.events.map((e: FeedEvent) => [e.type, (e.data.contact as { email: string }).email])).toEqual([['contact.created', email]]);
  });

  it('contact.updated carries changedFields, addedListIds and the contact after the change', async () => {
    const email = uniqueEmail();
    const other = await org.list('Other');
    expect((await org.postContact({ email, listIds: [list], fields: { firstName: 'Ada' } })).status).toBe(201);
    const res = await org.postContact({ email, listIds: [list, other], fields: { firstName: 'Ida', city: 'Oslo' }, overwrite: true });
    expect(res.status).toBe(200);
    const { events } = await readAll(org);
    expect(events.map((e) => e.type)).toEqual(['contact.created', 'contact.updated']);
    expect(events[1]).toEqual({
      id: expect.stringMatching(EVENT_ID),
      type: 'contact.updated',
      occurredAt: expect.any(String),
      requestId: res.body.request_id,
      data: { contact: await org.read(email), changedFields: ['city', 'firstName'], addedListIds: [other] },
    });
    expect(events[0].id).not.toBe(events[1].id);
  });

  it('pages: following nextCursor with any limit gives every event once, oldest first', async () => {
    const emails = Array.from({ length: 7 }, () => uniqueEmail('p'));
    expect((await org.batch(emails.slice(0, 4).map((email) => ({ email, listIds: [list] })))).status).toBe(200);
    for (const email of emails.slice(4)) expect((await org.postContact({ email, listIds: [list] })).status).toBe(201);
    const whole = await readAll(org);
    expect(whole.events.map((e) => (e.data.contact as { email: string }).email)).toEqual(emails);
    for (const limit of [1, 2, 3, 1000]) {
      const paged = await readAll(org, { limit });
      expect(paged.events).toEqual(whole.events);
      expect(paged.cursor).toBe(whole.cursor);
    }
    const first = await feed(org, '?limit=3');
    expect(first.body.events).toEqual(whole.events.slice(0, 3));
    const second = await feed(org, `?limit=3&after=${first.body.nextCursor}`);
    expect(second.body.events).toEqual(whole.events.slice(3, 6));
  });

  it('limit defaults to 100 and is 1 to 1000', async () => {
    const contacts = Array.from({ length: 50 }, () => ({ email: uniqueEmail('l'), listIds: [list] }));
    for (let i = 0; i < 3; i++) {
      const batch = contacts.map((c) => ({ ...c, email: `${i}-${c.email}` }));
      expect((await org.batch(batch)).status).toBe(200);
    }
    expect((await feed(org)).body.events).toHaveLength(100);
    expect((await feed(org, '?limit=1000')).body.events).toHaveLength(150);
    expect((await feed(org, '?limit=1')).body.events).toHaveLength(1);
    for (const bad of ['0', '1001', '-1', '1.5', 'x', '', '10e1']) {
      expectRequestError(await feed(org, `?limit=${bad}`), 400, 'INVALID_REQUEST');
    }
    expectRequestError(await feed(org, '?limit=1&limit=2'), 400, 'INVALID_REQUEST');
  });

  it('types= keeps only the comma-separated types, and refuses an unknown one', async () => {
    const a = uniqueEmail('a');
    const b = uniqueEmail('b');
    expect((await org.postContact({ email: a, listIds: [list] })).status).toBe(201);
    expect((await org.postContact({ email: a, listIds: [list], fields: { city: 'Rome' }, overwrite: true })).status).toBe(200);
    expect((await org.postContact({ email: b, listIds: [list] })).status).toBe(201);
    const all = (await readAll(org)).events;
    expect(all.map((e) => e.type)).toEqual(['contact.created', 'contact.updated', 'contact.created']);
    expect((await readAll(org, { types: 'contact.updated' })).events).toEqual([all[1]]);
    expect((await readAll(org, { types: 'contact.created', limit: 1 })).events).toEqual([all[0], all[2]]);
    expect((await readAll(org, { types: 'contact.updated,contact.created' })).events).toEqual(all);
    expect((await readAll(org, { types: 'list.created' })).events).toEqual([]);
    for (const bad of ['contact.nope', '', 'contact.created,', 'Contact.Created']) {
      expectRequestError(await feed(org, `?types=${encodeURIComponent(bad)}`), 400, 'INVALID_REQUEST');
    }
  });

  it('a malformed cursor and an unknown parameter are 400 INVALID_REQUEST', async () => {
    for (const bad of ['x', 'not a cursor', '!!!', Buffer.from('1.2.3').toString('base64url'), Buffer.from('-1.0').toString('base64url'), Buffer.from('01.0').toString('base64url'), '']) {
      expectRequestError(await feed(org, `?after=${encodeURIComponent(bad)}`), 400, 'INVALID_REQUEST');
    }
    expectRequestError(await feed(org, '?cursor=abc'), 400, 'INVALID_REQUEST');
    expectRequestError(await feed(org, '?type=contact.created'), 400, 'INVALID_REQUEST');
  });

  it('needs contacts:read: a read key is enough, no key is 401', async () => {
    const readKey = await org.newKey({ scope: 'contacts:read' });
    const res = await app.t.http().get('/api/v2/events').set('Authorization', `Bearer ${readKey}`);
    expect(res.status).toBe(200);
    expectRequestError(await app.t.http().get('/api/v2/events'), 401, 'INVALID_API_KEY');
  });

  it("refuses another organization's cursor (400 INVALID_REQUEST): it would skip this feed's events before it", async () => {
    const { org: other, list: otherList } = await Org.withList(app.t);
    expect((await org.postContact({ email: uniqueEmail(), listIds: [list] })).status).toBe(201);
    expect((await other.postContact({ email: uniqueEmail(), listIds: [otherList] })).status).toBe(201);
    const theirs = (await readAll(other)).cursor;
    expectRequestError(await feed(org, `?after=${encodeURIComponent(theirs)}`), 400, 'INVALID_REQUEST');
    expect((await readAll(org)).events).toHaveLength(1);
  });

  it("shows only the caller's organization's events", async () => {
    const { org: other, list: otherList } = await Org.withList(app.t);
    expect((await other.postContact({ email: uniqueEmail(), listIds: [otherList] })).status).toBe(201);
    expect((await readAll(org)).events).toEqual([]);
    expect((await readAll(other)).events).toHaveLength(1);
  });

  it('unchanged and failed contacts, dry runs and reads write no event', async () => {
    const email = uniqueEmail();
    expect((await org.postContact({ email, listIds: [list] }, { dryRun: true })).status).toBe(201);
    expect((await org.batch([{ email, listIds: [list] }, { email: uniqueEmail(), listIds: [list] }], { dryRun: true })).status).toBe(200);
    expect((await org.postContact({ email, listIds: ['no-such-list'] })).status).toBe(400);
    expect((await org.postContact({ email: 'nope', listIds: [list] })).status).toBe(400);
    expect((await org.batch([{ email: 'nope', listIds: [list] }])).body.summary.failed).toBe(1);
    await org.suppress(email, 'bounced');
    expect((await org.postContact({ email, listIds: [list] })).status).toBe(409);
    expect((await readAll(org)).events).toEqual([]);

    expect((await org.postContact({ email, listIds: [list], overwrite: true })).status).toBe(201);
    const before = await readAll(org);
    expect(before.events).toHaveLength(1);
    expect((await org.postContact({ email, listIds: [list], overwrite: true })).body.status).toBe('unchanged');
    expect((await org.batch([{ email, listIds: [list], overwrite: true }])).body.summary.unchanged).toBe(1);
    expect((await org.postContact({ email, listIds: [list], fields: { city: 'X' }, overwrite: true }, { dryRun: true })).body.status).toBe('updated');
    expect((await org.getContact(email)).status).toBe(200);
    expect((await org.get('/api/v2/contacts')).status).toBe(200);
    expect((await readAll(org, { after: before.cursor })).events).toEqual([]);
  });

  it('every 2xx answer has its events, one per created or updated row, and nothing else has any', async () => {
    const emails = Array.from({ length: 12 }, () => uniqueEmail('c'));
    // Concurrent requests over overlapping emails: creates, updates, unchanged and failures mixed.
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => {
        const rows = [0, 1, 2].map((k) => ({
          email: emails[(i * 5 + k * 7) % emails.length],
          listIds: [list],
          fields: { city: `c${i % 3}` },
          overwrite: i % 4 !== 0,
        }));
        return i % 2 === 0 ? org.postContact(rows[0]) : org.batch([...rows, { email: 'bad', listIds: [list] }]);
      }),
    );
    const expected: string[] = [];
    for (const res of answers) {
      expect(res.status).toBeLessThan(500);
      const rows = res.body.results ?? [res.body];
      for (const row of rows) if (row.status === 'created' || row.status === 'updated') expected.push(`${res.body.request_id} contact.${row.status} ${row.email}`);
    }
    const got = (await readAll(org)).events.map((e) => `${e.requestId} ${e.type} ${(e.data.contact as { email: string }).email}`);
    expect([...got].sort()).toEqual([...expected].sort());
    expect(new Set(got).size).toBe(got.length);
  });
});

describe('GET /api/v2/events: retention', () => {
  // Events are kept one day here. The sweep runs every 10 minutes in the service; the test runs it at
  // once through the app, after making the organization's events so far two days old (the two steps
  // that are not HTTP). No sleep against a short retention: an event made after such a sleep would
  // have to reach the sweep within the retention, which a loaded CI machine need not do.
  const app = useTestApp({ IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', EVENT_RETENTION_DAYS: '1' });
  const sweep = () => app.t.app.get(EventsSweeper).sweep();
  /** The organization's events committed so far, as if committed two days ago: past the retention. */
  const ageAll = (org: Org) =>
    app.t.prisma.$executeRaw`UPDATE event_commits SET committed_at = committed_at - interval '2 days' WHERE organization_id = ${org.id}`;

  it('a cursor behind deleted events is 410 CURSOR_EXPIRED; without after the feed starts at the oldest kept; a reader at the head is not expired', async () => {
    const { org, list } = await Org.withList(app.t);
    const start = (await feed(org)).body.nextCursor as string;
    const old = [uniqueEmail('old'), uniqueEmail('old')];
    for (const email of old) expect((await org.postContact({ email, listIds: [list] })).status).toBe(201);
    const afterFirst = (await feed(org, '?limit=1')).body.nextCursor as string;
    const head = (await readAll(org)).cursor;

    expect(await ageAll(org)).toBeGreaterThanOrEqual(2);
    const fresh = uniqueEmail('fresh');
    expect((await org.postContact({ email: fresh, listIds: [list] })).status).toBe(201);
    expect(await sweep()).toBeGreaterThanOrEqual(2);

    expectRequestError(await feed(org, `?after=${start}`), 410, 'CURSOR_EXPIRED');
    expectRequestError(await feed(org, `?after=${afterFirst}`), 410, 'CURSOR_EXPIRED');
    const fromHead = await feed(org, `?after=${head}`);
    expect(fromHead.status).toBe(200);
    expect(fromHead.body.events.map((e: FeedEvent) => (e.data.contact as { email: string }).email)).toEqual([fresh]);
    const fromOldest = await feed(org);
    expect(fromOldest.body.events.map((e: FeedEvent) => (e.data.contact as { email: string }).email)).toEqual([fresh]);
  });

  // Section 16: nextCursor is "the position after the last event returned (or the given after when
  // the page is empty). A reader that comes back later with it gets what committed since." Found by
  // the black-box probe: once every event had been swept, the feed without after answered an empty
  // page whose nextCursor was the very start, which the next call refused with 410, for ever.
  it('when every event was swept, the feed without after answers a cursor that is not expired and later yields what committed since', async () => {
    const { org, list } = await Org.withList(app.t);
    for (const email of [uniqueEmail('gone'), uniqueEmail('gone')]) expect((await org.postContact({ email, listIds: [list] })).status).toBe(201);
    expect(await ageAll(org)).toBeGreaterThanOrEqual(2);
    expect(await sweep()).toBeGreaterThanOrEqual(2);

    const empty = await feed(org);
    expect(empty.status).toBe(200);
    expect(empty.body.events).toEqual([]);
    const again = await feed(org, `?after=${empty.body.nextCursor}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ request_id: expect.any(String), events: [], nextCursor: empty.body.nextCursor });

    const later = uniqueEmail('later');
    expect((await org.postContact({ email: later, listIds: [list] })).status).toBe(201);
    const since = await feed(org, `?after=${empty.body.nextCursor}`);
    expect(since.status).toBe(200);
    expect(since.body.events.map((e: FeedEvent) => (e.data.contact as { email: string }).email)).toEqual([later]);
  });
});
