import { ContactSyncClient, ContactSyncError, type ContactInput, type SyncRow } from '../../client/src';
import { Org } from '../contract/helpers';
import { createApiKey } from '../utils/fixtures';
import { createTestApp, type TestApp } from '../utils/test-app';
import { FaultProxy, type Fault } from './fault-proxy';

/**
 * The client against the real service (createTestApp: real PostgreSQL), through a fault-injecting
 * proxy. Backoff is kept short so the retries take milliseconds; the rules are the same.
 */
describe('@contact-sync/client against the real service', () => {
  let t: TestApp;
  let proxy: FaultProxy;
  let baseUrl: string;
  beforeAll(async () => {
    t = await createTestApp();
    proxy = new FaultProxy((t.app.getHttpServer().address() as { port: number }).port);
    baseUrl = await proxy.start();
  });
  afterAll(async () => {
    await proxy.close();
    await t.close();
  });
  beforeEach(() => {
    proxy.decide = () => 'pass';
    proxy.log.length = 0;
  });

  type Caller = Awaited<ReturnType<typeof Org.withList>>;
  const clientFor = (c: Caller) => new ContactSyncClient({ baseUrl, apiKey: c.org.key, retry: { baseDelayMs: 5, maxDelayMs: 50 } });
  const posts = (path: string) => proxy.log.filter((r) => r.method === 'POST' && r.path.split('?')[0] === path);
  const lookups = () => proxy.log.filter((r) => r.method === 'GET' && r.path.startsWith('/api/v2/requests?'));
  const contactsOf = (c: Caller) => t.prisma.contact.findMany({ where: { organizationId: c.org.id }, select: { email: true } });

  /** Faults by arrival order among the requests `select` picks; others pass. */
  function faultsFor(select: (r: { method: string; path: string }) => boolean, faults: Fault[]) {
    let n = 0;
    proxy.decide = (r) => (select(r) ? (faults[n++] ?? 'pass') : 'pass');
  }
  const isPost = (path: string) => (r: { method: string; path: string }) => r.method === 'POST' && r.path.split('?')[0] === path;

  describe('lists and custom fields (admin key)', () => {
    const adminClientFor = async (c: Caller) =>
      new ContactSyncClient({ baseUrl, apiKey: (await createApiKey(t.prisma, c.org.id, { scope: 'admin' })).key, retry: { baseDelayMs: 5, maxDelayMs: 50 } });

    it('createList, updateList, createField, updateField answer the service’s bodies; errors are typed', async () => {
      const c = await Org.withList(t);
      const client = await adminClientFor(c);
      const created = await client.createList({ name: 'Client list' });
      expect(created.list).toEqual({ id: expect.any(String), name: 'Client list', archived: false });
      expect((await client.updateList(created.list.id, { archived: true })).list).toEqual({ ...created.list, archived: true });
      const field = await client.createField({ key: 'plan', type: 'select', options: ['a'], defaultValue: 'a' });
      expect(field.field).toEqual({ key: 'plan', type: 'select', required: false, defaultValue: 'a', options: ['a'] });
      expect((await client.updateField('plan', { options: ['a', 'b'] })).field.options).toEqual(['a', 'b']);

      const taken = await client.createField({ key: 'plan', type: 'text' }).catch((e: unknown) => e);
      expect(taken).toMatchObject({ status: 409, code: 'FIELD_KEY_TAKEN', attempts: 1 });
      const missing = await client.updateList('nope', { name: 'x' }).catch((e: unknown) => e);
      expect(missing).toMatchObject({ status: 404, code: 'LIST_NOT_FOUND' });
      const scoped = await clientFor(c).createList({ name: 'x' }).catch((e: unknown) => e);
      expect(scoped).toBeInstanceOf(ContactSyncError);
      expect(scoped).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE', attempts: 1 });
    });

    it('retries a create after 503 (nothing written), but not after a lost answer: it may have been created', async () => {
      const c = await Org.withList(t);
      const client = await adminClientFor(c);
      faultsFor(isPost('/api/v2/lists'), ['fail-503', 'pass']);
      expect((await client.createList({ name: 'After 503' })).list.name).toBe('After 503');
      expect(posts('/api/v2/lists')).toHaveLength(2);

      proxy.log.length = 0;
      faultsFor(isPost('/api/v2/lists'), ['drop-response']);
      const lost = await client.createList({ name: 'Lost answer' }).catch((e: unknown) => e);
      expect(lost).toMatchObject({ code: 'NETWORK_ERROR', attempts: 1 });
      expect(posts('/api/v2/lists')).toHaveLength(1);
      // It was created once: the caller learns it from listLists().
      expect((await client.listLists()).lists.filter((l) => l.name === 'Lost answer')).toHaveLength(1);
    });
  });

  describe('reads and typed errors', () => {
    it('listLists, listFields, getContact (null when absent), getRequest and findRequestByClientId', async () => {
      const c = await Org.withList(t);
      const client = clientFor(c);
      expect((await client.listLists()).lists).toEqual([{ id: c.list, name: 'Main', archived: false }]);
      expect((await client.listFields()).standard.map((f) => f.key)).toContain('firstName');
      expect(await client.getContact('nobody@example.com')).toBeNull();

      const created = await client.upsertContact({ email: 'Ada@Example.com', listIds: [c.list] });
      expect(created).toMatchObject({ status: 'created', email: 'ada@example.com', httpStatus: 201 });
      expect((await client.getContact('ada@example.com'))?.contact.listIds).toEqual([c.list]);

      const [post] = posts('/api/v2/contacts');
      const byClientId = await client.findRequestByClientId(post.clientRequestId!);
      expect(byClientId?.original).toMatchObject({ client_request_id: post.clientRequestId, status: 201, body: { status: 'created' } });
      expect((await client.getRequest(created.request_id))?.original.body).toEqual(byClientId?.original.body);
      expect(await client.findRequestByClientId('never-used')).toBeNull();
    });

    it('listContacts pages to the end as an async iterator; deleteContact, removeFromList, removeFromListBatch', async () => {
      const c = await Org.withList(t);
      const client = clientFor(c);
      const other = (await t.prisma.list.create({ data: { organizationId: c.org.id, name: 'Other' } })).id;
      const emails = Array.from({ length: 7 }, (_, i) => `walk${i}@example.com`);
      await client.syncContacts(emails.map((email) => ({ email, listIds: [c.list, other] })));

      const pages: string[][] = [];
      for await (const page of client.listContacts({ limit: 3, listId: other })) pages.push(page.contacts.map((contact) => contact.email));
      expect(pages).toEqual([emails.slice(0, 3), emails.slice(3, 6), emails.slice(6)]);
      const first = await client.listContactsPage({ limit: 2, updatedSince: new Date(0), suppressed: false });
      expect(first.contacts).toHaveLength(2);
      expect((await client.listContactsPage({ limit: 10, cursor: first.nextCursor, updatedSince: new Date(0), suppressed: false })).contacts).toHaveLength(5);

      expect(await client.removeFromList(other, 'walk0@example.com')).toMatchObject({ status: 'removed', listId: other });
      const batch = await client.removeFromListBatch(other, ['walk0@example.com', 'walk1@example.com', 'nope']);
      expect(batch.results.map((row) => row.code ?? row.status)).toEqual(['unchanged', 'removed', 'INVALID_EMAIL']);
      await expect(client.removeFromList(c.list, 'walk0@example.com')).rejects.toMatchObject({ status: 409, code: 'LAST_LIST_MEMBERSHIP' });
      await expect(client.removeFromList('nope', 'walk0@example.com')).rejects.toMatchObject({ status: 404, code: 'LIST_NOT_FOUND' });

      expect(await client.deleteContact('walk0@example.com')).toMatchObject({ email: 'walk0@example.com', status: 'deleted' });
      expect(await client.deleteContact('walk0@example.com')).toBeNull();
      await expect(client.listContactsPage({ limit: 0 })).rejects.toBeInstanceOf(ContactSyncError);
    });

    it('a refused key is a ContactSyncError with status, code and request_id, sent once', async () => {
      const client = new ContactSyncClient({ baseUrl, apiKey: 'csk_wrong' });
      const error = await client.listLists().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ContactSyncError);
      const { status, code, request_id, attempts } = error as ContactSyncError;
      expect({ status, code, attempts }).toEqual({ status: 401, code: 'INVALID_API_KEY', attempts: 1 });
      expect(request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(proxy.log).toHaveLength(1);
    });
  });

  it('eraseContact, suppress, listSuppressions (async iterator over pages) and unsuppress', async () => {
    const c = await Org.withList(t);
    // Erase and unsuppress need an admin key (docs/api.md, "Key scopes").
    const adminKey = await c.org.newKey({ scope: 'admin' });
    const client = new ContactSyncClient({ baseUrl, apiKey: adminKey, retry: { baseDelayMs: 5, maxDelayMs: 50 } });
    await client.upsertContact({ email: 'erase.me@example.com', listIds: [c.list] });
    const emails = Array.from({ length: 5 }, (_, i) => `s${i}@example.com`);
    const suppressed = await client.suppress([...emails.map((email) => ({ email, reason: 'bounced' as const })), { email: 'erase.me@example.com', reason: 'complained' }]);
    expect(suppressed.results.map((r) => r.status)).toEqual(Array(6).fill('suppressed'));

    const pages: string[][] = [];
    for await (const page of client.listSuppressions({ limit: 2, reason: 'bounced' })) pages.push(page.suppressions.map((s) => s.email));
    expect(pages).toEqual([emails.slice(0, 2), emails.slice(2, 4), emails.slice(4)]);

    expect(await client.eraseContact('Erase.Me@example.com')).toMatchObject({ status: 'erased', contactDeleted: true, suppressionKept: true });
    expect(await client.unsuppress('s0@example.com')).toMatchObject({ email: 's0@example.com', status: 'unsuppressed' });
    await expect(client.unsuppress('s0@example.com')).rejects.toMatchObject({ code: 'SUPPRESSION_NOT_FOUND', status: 404 });
    await expect(client.unsuppress('erase.me@example.com')).rejects.toMatchObject({ code: 'SUPPRESSION_LOCKED', status: 409 });
  });

  it('events(): pages of the feed in commit order, ending at an empty page with a cursor to come back with; follow keeps polling until aborted', async () => {
    const c = await Org.withList(t);
    const client = clientFor(c);
    const emails = Array.from({ length: 5 }, (_, i) => `ev${i}@example.com`);
    for (const email of emails) await client.upsertContact({ email, listIds: [c.list] });
    // An update between them: not a contact.created, so not in the filtered pages.
    expect(await client.upsertContact({ email: emails[0], listIds: [c.list], fields: { city: 'Oslo' }, overwrite: true })).toMatchObject({ status: 'updated' });

    const pages: string[][] = [];
    let saved = '';
    for await (const page of client.events({ limit: 2, types: ['contact.created'] })) {
      pages.push(page.events.map((event) => (event.data.contact as { email: string }).email));
      saved = page.nextCursor;
    }
    expect(pages).toEqual([emails.slice(0, 2), emails.slice(2, 4), emails.slice(4), []]);

    // Later, without the filter: what follows the saved place (the update came after the last create read).
    await client.upsertContact({ email: 'later@example.com', listIds: [c.list] });
    const later: string[] = [];
    for await (const page of client.events({ after: saved })) later.push(...page.events.map((event) => event.type));
    expect(later).toEqual(['contact.updated', 'contact.created']);

    // follow: an empty page does not end it; a new event arrives on a later poll; abort ends it quietly.
    const abort = new AbortController();
    const seen: string[] = [];
    const following = (async () => {
      for await (const page of client.events({ after: saved, follow: true, pollIntervalMs: 20, types: ['contact.created'], signal: abort.signal })) {
        seen.push(...page.events.map((event) => (event.data.contact as { email: string }).email));
        if (seen.includes('followed@example.com')) abort.abort();
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await client.upsertContact({ email: 'followed@example.com', listIds: [c.list] });
    await following;
    expect(seen).toEqual(['later@example.com', 'followed@example.com']);

    await expect(client.events({ after: 'not-a-cursor' }).next()).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
  });

  it('dryRun: the answer the real call would give, nothing written, on both calls', async () => {
    const c = await Org.withList(t);
    const client = clientFor(c);
    const single = await client.upsertContact({ email: 'dry@example.com', listIds: [c.list] }, { dryRun: true });
    expect(single).toMatchObject({ status: 'created', dryRun: true, httpStatus: 201 });
    expect('id' in single).toBe(false);
    const batch = await client.syncContacts([{ email: 'dry1@example.com', listIds: [c.list] }, { email: 'bad' }], { dryRun: true });
    expect(batch.results.map((r) => [r.index, r.status])).toEqual([[0, 'created'], [1, 'failed']]);
    expect(proxy.log.map((r) => r.path)).toEqual(['/api/v2/contacts?dryRun=true', '/api/v2/contacts/batch?dryRun=true']);
    expect(await contactsOf(c)).toHaveLength(0);
  });

  describe('a 400 is never retried', () => {
    it('a request-level 400 throws after one POST; a per-contact 400 or 409 is a result after one POST', async () => {
      const c = await Org.withList(t);
      const client = clientFor(c);
      const shape = await client.upsertContact({ email: 'a@example.com', listIds: 'x' } as unknown as ContactInput).catch((e: unknown) => e);
      expect(shape).toMatchObject({ status: 400, code: 'INVALID_REQUEST', attempts: 1 });
      const invalid = await client.upsertContact({ email: 'not-an-email', listIds: [c.list] });
      expect(invalid).toMatchObject({ status: 'failed', code: 'INVALID_EMAIL', httpStatus: 400 });
      await client.upsertContact({ email: 'b@example.com', listIds: [c.list] });
      const duplicate = await client.upsertContact({ email: 'b@example.com', listIds: [c.list] });
      expect(duplicate).toMatchObject({ status: 'failed', code: 'DUPLICATE_EMAIL', httpStatus: 409 });
      expect(duplicate.recovered).toBeUndefined();
      expect(posts('/api/v2/contacts')).toHaveLength(4);
      expect(lookups()).toHaveLength(0);
    });

    it('syncContacts: a batch refused with 400 is sent once and its rows say so; the other batches are written', async () => {
      const c = await Org.withList(t);
      const contacts: ContactInput[] = Array.from({ length: 60 }, (_, i) => ({ email: `r${i}@example.com`, listIds: [c.list] }));
      contacts[55] = { email: 'bad@example.com', listIds: 'x' } as unknown as ContactInput; // shape error in the 2nd batch
      const result = await clientFor(c).syncContacts(contacts);
      expect(posts('/api/v2/contacts/batch')).toHaveLength(2);
      expect(result.results.slice(50).every((r) => r.status === 'failed' && r.code === 'INVALID_REQUEST' && 'requestFailed' in r)).toBe(true);
      expect(result.summary).toEqual({ created: 50, updated: 0, unchanged: 0, failed: 10, recovered: 0 });
      expect(await contactsOf(c)).toHaveLength(50);
    });
  });

  describe('retries and recovery of lost answers', () => {
    it('503 before forwarding: retried with a fresh X-Client-Request-Id each time, after asking whether it was processed', async () => {
      const c = await Org.withList(t);
      faultsFor(isPost('/api/v2/contacts'), ['fail-503', 'fail-503']);
      const result = await clientFor(c).upsertContact({ email: 'retry@example.com', listIds: [c.list] });
      expect(result).toMatchObject({ status: 'created', httpStatus: 201 });
      const sent = posts('/api/v2/contacts');
      expect(sent.map((r) => r.outcome)).toEqual(['fail-503', 'fail-503', 201]);
      expect(new Set(sent.map((r) => r.clientRequestId)).size).toBe(3);
      expect(lookups().map((r) => r.outcome)).toEqual([404, 404]);
      expect(await contactsOf(c)).toHaveLength(1);
    });

    it('response dropped after the service processed it: the stored answer is the result, nothing is resent', async () => {
      const c = await Org.withList(t);
      faultsFor(isPost('/api/v2/contacts'), ['drop-response']);
      const result = await clientFor(c).upsertContact({ email: 'lost@example.com', listIds: [c.list] });
      expect(result).toMatchObject({ status: 'created', email: 'lost@example.com', httpStatus: 201 });
      expect(posts('/api/v2/contacts').map((r) => r.outcome)).toEqual(['dropped']);
      expect(lookups().map((r) => r.outcome)).toEqual([200]);
    });

    it('dropped, and the first lookup misses: the retry answers DUPLICATE_EMAIL, the earlier attempt is reported created (recovered)', async () => {
      const c = await Org.withList(t);
      faultsFor(isPost('/api/v2/contacts'), ['drop-response']);
      let lookupsSeen = 0;
      const postFaults = proxy.decide;
      proxy.decide = (r) => (r.method === 'GET' && r.path.startsWith('/api/v2/requests?') && lookupsSeen++ === 0 ? 'fake-not-found' : postFaults(r));
      const result = await clientFor(c).upsertContact({ email: 'late@example.com', listIds: [c.list] });
      expect(result).toMatchObject({ status: 'created', email: 'late@example.com', httpStatus: 201, recovered: true });
      expect(posts('/api/v2/contacts').map((r) => r.outcome)).toEqual(['dropped', 409]);
      expect(lookups().map((r) => r.outcome)).toEqual(['fake-not-found', 200]);
      expect(await contactsOf(c)).toHaveLength(1);
    });

    it('retries stop after maxAttempts and throw the last error', async () => {
      const c = await Org.withList(t);
      proxy.decide = (r) => (r.method === 'POST' ? 'fail-503' : 'pass');
      const client = new ContactSyncClient({ baseUrl, apiKey: c.org.key, retry: { maxAttempts: 3, baseDelayMs: 5 } });
      const error = await client.upsertContact({ email: 'never@example.com', listIds: [c.list] }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 503, code: 'UNEXPECTED_RESPONSE', attempts: 3 });
      expect(posts('/api/v2/contacts')).toHaveLength(3);
    });

    it('the total time is bounded: no retry starts past maxElapsedMs', async () => {
      const c = await Org.withList(t);
      proxy.decide = (r) => (r.method === 'POST' ? 'fail-503' : 'pass');
      const client = new ContactSyncClient({
        baseUrl,
        apiKey: c.org.key,
        retry: { maxAttempts: 100, baseDelayMs: 10_000, maxElapsedMs: 1000 },
        random: () => 0.99, // the first backoff (~9.9 s) would end past the budget
      });
      const error = await client.upsertContact({ email: 'late@example.com', listIds: [c.list] }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 503, attempts: 1 });
      expect(posts('/api/v2/contacts')).toHaveLength(1);
    });

    it('a refused connection is retried with backoff, without a lookup (nothing was sent), then NETWORK_ERROR', async () => {
      const closed = new FaultProxy(1);
      const closedUrl = await closed.start();
      await closed.close(); // its port now refuses connections
      const client = new ContactSyncClient({ baseUrl: closedUrl, apiKey: 'k', retry: { maxAttempts: 3, baseDelayMs: 5 } });
      const error = await client.upsertContact({ email: 'x@example.com', listIds: ['l'] }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: null, code: 'NETWORK_ERROR', request_id: null, attempts: 3 });
      expect(client.stats).toMatchObject({ requests: 3, lookups: 0 });
    });

    it('syncContacts with dropped answers: every contact the service created is reported created, once, never DUPLICATE_EMAIL', async () => {
      const c = await Org.withList(t);
      const contacts: ContactInput[] = Array.from({ length: 500 }, (_, i) => ({ email: `Sync${i}@Example.com`, listIds: [c.list] }));
      // Every other batch POST loses its answer; every other lost answer's first lookup misses too.
      let postNo = 0;
      const hidden = new Set<string>();
      proxy.decide = (r) => {
        if (r.method === 'POST') {
          const n = postNo++;
          if (n % 2 === 0) {
            if (n % 4 === 0) hidden.add(r.clientRequestId!);
            return 'drop-response';
          }
          return 'pass';
        }
        const id = new URLSearchParams(r.path.split('?')[1]).get('clientRequestId');
        if (id && hidden.delete(id)) return 'fake-not-found';
        return 'pass';
      };
      const progress: number[] = [];
      const result = await clientFor(c).syncContacts(contacts, { concurrency: 3, onProgress: (p) => progress.push(p.done) });

      expect(result.results).toHaveLength(500);
      result.results.forEach((row, i) => {
        expect([row.index, row.email, row.status]).toEqual([i, `sync${i}@example.com`, 'created']);
      });
      const stored = await contactsOf(c);
      expect(stored).toHaveLength(500);
      expect(new Set(result.results.map((r) => (r as SyncRow & { id?: string }).id)).size).toBe(500);
      expect(result.summary).toMatchObject({ created: 500, failed: 0 });
      expect(result.summary.recovered).toBeGreaterThan(0); // the hidden lookups were recovered from the retry's DUPLICATE_EMAIL
      expect(proxy.log.filter((r) => r.outcome === 'dropped').length).toBeGreaterThan(0);
      expect(progress).toHaveLength(10);
      expect(progress[progress.length - 1]).toBe(500);
    });

    it('an AbortSignal stops the call: it rejects with the reason and sends nothing more', async () => {
      const c = await Org.withList(t);
      const controller = new AbortController();
      const contacts: ContactInput[] = Array.from({ length: 200 }, (_, i) => ({ email: `ab${i}@example.com`, listIds: [c.list] }));
      const call = clientFor(c).syncContacts(contacts, {
        concurrency: 1,
        signal: controller.signal,
        onProgress: () => controller.abort(new Error('stop')),
      });
      await expect(call).rejects.toThrow('stop');
      expect(posts('/api/v2/contacts/batch').length).toBeLessThanOrEqual(2);
    });
  });
});

describe('@contact-sync/client: 10,000 contacts against a rate-limited service', () => {
  let t: TestApp;
  let proxy: FaultProxy;
  let baseUrl: string;
  beforeAll(async () => {
    // A few requests per second: the 200 batches cannot pass without 429s.
    t = await createTestApp({ ORG_RATE_LIMIT: '10', RATE_WINDOW_SECONDS: '1' });
    proxy = new FaultProxy((t.app.getHttpServer().address() as { port: number }).port);
    baseUrl = await proxy.start();
  });
  afterAll(async () => {
    await proxy.close();
    await t.close();
  });

  it('a 429 is waited out for its Retry-After, then the request succeeds', async () => {
    const c = await Org.withList(t);
    const client = new ContactSyncClient({ baseUrl, apiKey: c.org.key });
    // Until the window is full (10 in a second: 11 on a quiet machine, more when requests are slow).
    for (let i = 0; i < 200 && !proxy.log.some((r) => r.outcome === 429); i++) await client.listLists();
    const refused = proxy.log.findIndex((r) => r.outcome === 429);
    expect(refused).toBeGreaterThan(0);
    const { at, retryAfter } = proxy.log[refused];
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // The next request (the retry) came no earlier than Retry-After allowed (a lower bound: safe under load).
    expect(proxy.log[refused + 1].at - at).toBeGreaterThanOrEqual(Number(retryAfter) * 1000 - 50);
    expect(proxy.log[refused + 1].outcome).toBe(200);
    expect(client.stats.rateLimited).toBeGreaterThan(0);
    proxy.log.length = 0;
  });

  it('one syncContacts call: every contact created, results in input order, the 429s waited out', async () => {
    const c = await Org.withList(t);
    const client = new ContactSyncClient({ baseUrl, apiKey: c.org.key });
    const contacts: ContactInput[] = Array.from({ length: 10_000 }, (_, i) => ({
      email: `bulk${i}@example.com`,
      listIds: [c.list],
      fields: { firstName: `N${i}` },
    }));
    const started = Date.now();
    const result = await client.syncContacts(contacts, { concurrency: 4 });
    const seconds = (Date.now() - started) / 1000;

    expect(result.results).toHaveLength(10_000);
    const outOfOrder = result.results.filter((row, i) => row.index !== i || row.email !== `bulk${i}@example.com` || row.status !== 'created');
    expect(outOfOrder).toEqual([]);
    expect(result.summary).toEqual({ created: 10_000, updated: 0, unchanged: 0, failed: 0, recovered: 0 });
    expect(await t.prisma.contact.count({ where: { organizationId: c.org.id } })).toBe(10_000);
    const refused = proxy.log.filter((r) => r.outcome === 429).length;
    expect(refused).toBeGreaterThan(0);
    expect(proxy.log.filter((r) => r.method === 'POST' && r.outcome === 200)).toHaveLength(200);
    console.log(`10,000 contacts in ${seconds.toFixed(1)} s: ${proxy.log.length} requests, ${refused} answered 429`);
  }, 120_000);
});
