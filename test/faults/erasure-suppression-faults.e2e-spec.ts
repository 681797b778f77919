import type { Client } from 'pg';
import { useFaultApp } from './fault-app';
import { terminateLockWaiters } from './fault-database';

/**
 * Erase, suppress and lift with the database connection terminated mid-request (docs/api.md,
 * "Erasing a contact", "Suppressions"): the request is held inside its transaction (after some of
 * its writes) by a row lock taken from outside, its backend is terminated, and it must answer 503
 * SERVICE_UNAVAILABLE with Retry-After and leave everything as it was; then it succeeds.
 * These routes run on Prisma Client: their 503 needs Prisma's errors classified centrally like the
 * pool's (src/database/database-errors.ts); until then they answer 500 and the status checks fail.
 */
describe('erasure and suppressions under database faults', () => {

  const f = useFaultApp({ DB_POOL_SIZE: '5', DB_CONNECT_TIMEOUT_MS: '1000', DB_STATEMENT_TIMEOUT_MS: '20000' }, { scope: 'admin' }, 120_000);

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${f.base}${path}`, {
      method,
      headers: body === undefined ? { Authorization: f.auth.Authorization } : f.auth,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  /**
   * Runs `request` while an outside transaction holds `lockSql` (a row lock the request will wait
   * on); once the request's backend waits on it, that backend is terminated. Returns the answer.
   */
  async function terminatedWhileWaiting<T>(lockSql: string, values: unknown[], request: () => Promise<T>): Promise<T> {
    return f.db.withClient(async (holder: Client) => {
      await holder.query('BEGIN');
      await holder.query(lockSql, values);
      const answer = request();
      if ((await terminateLockWaiters(holder, 20_000)) === 0) throw new Error('the request never waited on the lock');
      await holder.query('ROLLBACK');
      return answer;
    });
  }

  async function state(email: string) {
    return f.db.withClient(async (client) => {
      const one = async (sql: string) => (await client.query<{ n: number }>(sql, [f.organizationId, email])).rows[0].n;
      return {
        contacts: await one('SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1 AND email = $2'),
        memberships: await one('SELECT count(*)::int AS n FROM list_memberships m JOIN contacts c ON c.id = m.contact_id WHERE c.organization_id = $1 AND c.email = $2'),
        suppressions: await one('SELECT count(*)::int AS n FROM suppressions WHERE organization_id = $1 AND email = $2'),
        erased: await one("SELECT count(*)::int AS n FROM erased_suppressions WHERE organization_id = $1 AND $2 <> ''"),
        answers: await one('SELECT count(*)::int AS n FROM stored_responses WHERE organization_id = $1 AND $2 = ANY(emails)'),
      };
    });
  }

  it('erase terminated after deleting the contact and hashing the suppression: 503, nothing erased; then erased', async () => {
    const email = 'fault.erase@example.com';
    expect((await call('POST', '/api/v2/contacts', { email, listIds: [f.listId] })).status).toBe(201);
    expect((await call('POST', '/api/v2/suppressions', { suppressions: [{ email, reason: 'bounced' }] })).status).toBe(200);
    const before = await state(email);
    expect(before).toEqual({ contacts: 1, memberships: 1, suppressions: 1, erased: 0, answers: 1 });
    // The stored answers are deleted last: the request waits there with the contact already deleted in its transaction.
    const res = await terminatedWhileWaiting(
      'SELECT 1 FROM stored_responses WHERE organization_id = $1 AND $2 = ANY(emails) FOR UPDATE',
      [f.organizationId, email],
      () => call('POST', `/api/v2/contacts/${encodeURIComponent(email)}/erase`),
    );
    // Nothing half-done first (the transaction rolled back), then the answer.
    expect(await state(email)).toEqual(before);
    expect([res.status, res.body.error?.code, res.retryAfter]).toEqual([503, 'SERVICE_UNAVAILABLE', expect.stringMatching(/^[1-9]\d*$/)]);
    const again = await call('POST', `/api/v2/contacts/${encodeURIComponent(email)}/erase`);
    expect(again.body).toMatchObject({ status: 'erased', contactDeleted: true, suppressionKept: true, storedAnswersErased: 1 });
    expect(await state(email)).toEqual({ contacts: 0, memberships: 0, suppressions: 0, erased: 1, answers: 0 });
  });

  it('suppress terminated mid-request: 503, none of the batch written', async () => {
    const emails = ['fault.s1@example.com', 'fault.s2@example.com'];
    // Reads pass an EXCLUSIVE table lock; the batch's insert waits behind it.
    const res = await terminatedWhileWaiting(
      'LOCK TABLE suppressions IN EXCLUSIVE MODE',
      [],
      () => call('POST', '/api/v2/suppressions', { suppressions: emails.map((email) => ({ email, reason: 'unsubscribed' })) }),
    );
    for (const email of emails) expect((await state(email)).suppressions).toBe(0);
    expect([res.status, res.body.error?.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    const ok = await call('POST', '/api/v2/suppressions', { suppressions: emails.map((email) => ({ email, reason: 'unsubscribed' })) });
    expect(ok.body.results.map((r: { status: string }) => r.status)).toEqual(['suppressed', 'suppressed']);
  });

  it('lift terminated mid-request: 503, the suppression stays', async () => {
    const email = 'fault.lift@example.com';
    await call('POST', '/api/v2/suppressions', { suppressions: [{ email, reason: 'bounced' }] });
    // The plain suppression is deleted first; the request then waits to delete any erased one.
    const res = await terminatedWhileWaiting('LOCK TABLE erased_suppressions IN EXCLUSIVE MODE', [], () =>
      call('DELETE', `/api/v2/suppressions/${encodeURIComponent(email)}`),
    );
    expect((await state(email)).suppressions).toBe(1);
    expect([res.status, res.body.error?.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect((await call('DELETE', `/api/v2/suppressions/${encodeURIComponent(email)}`)).status).toBe(200);
  });
});
