import { ContactsRepository } from '../../src/contacts/contacts.repository';
import { Database } from '../../src/database/database';
import { RequestError } from '../../src/errors/request-error';
import { MetricsService } from '../../src/metrics/metrics.service';
import { createOrgWith, holdEmailLock } from '../utils/fixtures';
import { createTestApp, type TestApp } from '../utils/test-app';

/**
 * A write that waits past DB_LOCK_TIMEOUT_MS for the per-email locks another request holds
 * (ContactsRepository.lockEmails) is not a database outage: PostgreSQL ends the wait with 55P03,
 * the request answers 503 saying the contacts are being changed by other requests, writes
 * nothing, and is counted as service_unavailable_total{reason="lock_timeout"}.
 */
const LOCK_TIMEOUT_MS = 400;

describe('lock waits past DB_LOCK_TIMEOUT_MS', () => {
  let t: TestApp;
  let database: Database;
  let contacts: ContactsRepository;
  beforeAll(async () => {
    t = await createTestApp({ DB_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS), DB_STATEMENT_TIMEOUT_MS: '5000' });
    database = t.app.get(Database);
    contacts = t.app.get(ContactsRepository);
  });
  afterAll(() => t?.close());

  const holdLock = (organizationId: string, email: string) => holdEmailLock(t.app, organizationId, email);

  it('two transactions on one email: the waiting one fails after the lock timeout with the "being changed" 503, not "the database cannot serve"', async () => {
    const org = await createOrgWith(t.prisma, { lists: ['Main'] });
    const holder = await holdLock(org.id, 'shared@example.com');
    try {
      const started = Date.now();
      const waiting = await database.transaction((tx) => contacts.lockEmails(tx, org.id, ['other@example.com', 'shared@example.com'])).catch((e: unknown) => e);
      const waited = Date.now() - started;
      expect(waiting).toBeInstanceOf(RequestError);
      const error = waiting as RequestError;
      expect([error.status, error.code, error.unavailableReason, error.headers]).toEqual([503, 'SERVICE_UNAVAILABLE', 'lock_timeout', { 'Retry-After': '1' }]);
      expect(error.message).toMatch(/being changed by other requests/);
      expect(error.message).not.toMatch(/database/i);
      expect(waited).toBeGreaterThanOrEqual(LOCK_TIMEOUT_MS - 50);
      expect(waited).toBeLessThan(3000); // ended by lock_timeout, far before the 5 s statement timeout
    } finally {
      await holder.release();
    }
    // Once the holder is done, the same lock is taken at once.
    await database.transaction((tx) => contacts.lockEmails(tx, org.id, ['shared@example.com']));
  });

  it('over HTTP: 503 with the message and Retry-After, nothing written, its own metric label; after the holder commits, 201', async () => {
    const org = await createOrgWith(t.prisma, { lists: ['Main'] });
    const auth = { Authorization: `Bearer ${org.apiKey}` };
    const body = { email: 'Busy.Contact@Example.com', listIds: [org.lists[0].id] };
    const metrics = t.app.get(MetricsService);
    const counted = async (reason: string) => (await metrics.serviceUnavailable.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
    const before = { lock: await counted('lock_timeout'), database: await counted('database') };

    const holder = await holdLock(org.id, 'busy.contact@example.com');
    let res;
    try {
      res = await t.http().post('/api/v2/contacts').set(auth).send(body);
    } finally {
      await holder.release();
    }
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({
      request_id: res.headers['x-request-id'],
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/being changed by other requests/) },
    });
    expect(await t.prisma.contact.count({ where: { organizationId: org.id } })).toBe(0);
    expect(await counted('lock_timeout')).toBe(before.lock + 1);
    expect(await counted('database')).toBe(before.database);
    const scrape = await t.http().get('/metrics').expect(200);
    expect(scrape.text).toMatch(/^service_unavailable_total\{reason="lock_timeout"\} [1-9]/m);

    const retried = await t.http().post('/api/v2/contacts').set(auth).send(body);
    expect([retried.status, retried.body.status]).toEqual([201, 'created']);
  });
});
