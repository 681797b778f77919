import { Client } from 'pg';
import type { NewEvent } from '../../src/events/event-types';
import { EventsRepository } from '../../src/events/events.repository';
import { writeEvents } from '../../src/events/event-writes';
import { createOrganization } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';

/**
 * The feed reads a page up to the organization's last known horizon (EventsFeedRepository,
 * docs/events.md "How it is kept"): a page that horizon fills needs no wait for the organization's
 * commits in progress; a page it does not fill is read again up to a fresh horizon, which waits for
 * them. A commit in progress is played by a transaction holding the organization's shared advisory
 * lock, as a committing writer does from its position's trigger until its commit is visible.
 */
describe('GET /api/v2/events: the horizon of a page', () => {
  const app = useTestApp({ DB_LOCK_TIMEOUT_MS: '20000', DB_STATEMENT_TIMEOUT_MS: '30000' });

  const event = (organizationId: string, name: string): NewEvent => ({
    organizationId,
    type: 'list.created',
    requestId: name,
    data: { list: { id: name, name, archived: false } },
  });
  const page = async (apiKey: string, query: string) => {
    const res = await app.t.http().get(`/api/v2/events?${query}`).set('Authorization', `Bearer ${apiKey}`);
    expect(res.status).toBe(200);
    return { names: (res.body.events as Array<{ requestId: string }>).map((e) => e.requestId), nextCursor: res.body.nextCursor as string };
  };

  it('a full page does not wait for a commit in progress; a short one waits for it and includes its events', async () => {
    const org = await createOrganization(app.t.prisma);
    for (const name of ['a', 'b', 'c']) {
      await app.t.prisma.database.transaction((tx) => app.t.app.get(EventsRepository).record(tx, [event(org.id, name)]));
    }
    // Learns a horizon at or above c's position.
    const first = await page(org.apiKey, 'limit=1');
    expect(first.names).toEqual(['a']);

    const committing = new Client({ connectionString: app.t.database.url });
    await committing.connect();
    try {
      await committing.query('BEGIN');
      await committing.query('SELECT pg_advisory_xact_lock_shared(1163284052, hashtext($1))', [org.id]);

      // Filled from the known horizon: answered while the commit is in progress (a wait would last until it ends).
      const full = await page(org.apiKey, `limit=2&after=${first.nextCursor}`);
      expect(full.names).toEqual(['b', 'c']);

      // Short: needs a fresh horizon, so it waits for the commit in progress.
      let answered = false;
      const short = page(org.apiKey, `limit=10&after=${full.nextCursor}`).finally(() => {
        answered = true;
      });
      for (;;) {
        const waiting = await committing.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ExclusiveLock' AND NOT granted AND objid = hashtext($1)::oid`,
          [org.id],
        );
        if (waiting.rowCount) break;
        expect(answered).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(answered).toBe(false);
      // The commit in progress writes its event and commits: the waiting page includes it.
      await writeEvents(committing, org.id, 'd', new Date(), [event(org.id, 'd')]);
      await committing.query('COMMIT');
      expect((await short).names).toEqual(['d']);
    } finally {
      await committing.end();
    }
  });
});
