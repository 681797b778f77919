import { Client } from 'pg';
import type { NewEvent } from '../../src/events/event-types';
import { EventsRepository } from '../../src/events/events.repository';
import { writeEvents } from '../../src/events/event-writes';
import { createOrganization } from '../utils/fixtures';
import { ROOM_FOR_LOAD, useTestApp } from '../utils/test-app';

/**
 * The feed's guarantee (contract section 14, docs/events.md): a reader following nextCursor gets
 * every committed event exactly once, in commit order, even when transactions commit in another
 * order than they began. Many writers commit concurrently, each waiting a random time between its
 * write and its COMMIT (so later transactions often commit before earlier ones), some rolling back;
 * a reader polls the feed meanwhile with random page sizes. Afterwards what the reader got is
 * compared with what committed.
 */

const random = (n: number) => Math.floor(Math.random() * n);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Commit {
  ids: string[];
  /** Client-side times (a monotonic counter): when COMMIT was sent and when it returned. */
  sentAt: number;
  doneAt: number;
}

describe('events feed: exactly once, in commit order, under concurrent writers', () => {
  // Writers (two of them Prisma transactions on the app's pool) race a reader whose every page must be
  // 200: under CI's load their pool and lock waits can pass the default time-outs: ROOM_FOR_LOAD.
  const app = useTestApp({ DB_POOL_SIZE: '12', ...ROOM_FOR_LOAD });
  let clock = 0;
  const tick = () => ++clock;

  const eventsFor = (organizationId: string, writer: number, n: number): NewEvent[] =>
    Array.from({ length: n }, (_, k) => ({
      organizationId,
      type: 'list.created',
      requestId: `w${writer}`,
      data: { list: { id: `w${writer}-${k}`, name: `writer ${writer}`, archived: false } },
    }));

  /** Writes through the pipeline's own INSERT (writeEvents, events.insert) on a raw connection. */
  async function rawWriter(url: string, organizationId: string, writer: number, transactions: number, commits: Commit[]): Promise<number> {
    const client = new Client({ connectionString: url });
    await client.connect();
    let rolledBack = 0;
    try {
      for (let i = 0; i < transactions; i++) {
        await client.query('BEGIN');
        await writeEvents(client, organizationId, `w${writer}`, new Date(), eventsFor(organizationId, writer, 1 + random(3)));
        const { rows } = await client.query<{ id: string }>('SELECT id::text AS id FROM events WHERE xid = pg_current_xact_id() ORDER BY seq');
        await sleep(random(40));
        if (random(5) === 0) {
          await client.query('ROLLBACK');
          rolledBack++;
          continue;
        }
        const sentAt = tick();
        await client.query('COMMIT');
        commits.push({ ids: rows.map((row) => row.id), sentAt, doneAt: tick() });
      }
    } finally {
      await client.end();
    }
    return rolledBack;
  }

  /** Writes through EventsRepository.record in a Database transaction (the other write paths). */
  async function prismaWriter(organizationId: string, writer: number, transactions: number, commits: Commit[]): Promise<void> {
    const repository = app.t.app.get(EventsRepository);
    for (let i = 0; i < transactions; i++) {
      let sentAt = 0;
      const ids = await app.t.prisma.database
        .transaction(async (tx) => {
          await repository.record(tx, eventsFor(organizationId, writer, 1 + random(3)));
          const { rows } = await tx.query<{ id: string }>('SELECT id::text AS id FROM events WHERE xid = pg_current_xact_id() ORDER BY seq');
          await sleep(random(40));
          if (random(5) === 0) throw new Error('rolled back');
          sentAt = tick();
          return rows.map((row) => row.id);
        })
        .catch((error: unknown) => {
          if ((error as Error).message === 'rolled back') return null;
          throw error;
        });
      if (ids) commits.push({ ids, sentAt, doneAt: tick() });
    }
  }

  /** The reader: follows nextCursor with random page sizes until `writing()` is false and a page comes back empty. */
  async function follow(apiKey: string, writing: () => boolean): Promise<{ got: string[]; polls: number }> {
    const got: string[] = [];
    let after: string | undefined;
    let polls = 0;
    for (;;) {
      const stillWriting = writing();
      const query = new URLSearchParams({ limit: String(1 + random(25)) });
      if (after !== undefined) query.set('after', after);
      const res = await app.t.http().get(`/api/v2/events?${query.toString()}`).set('Authorization', `Bearer ${apiKey}`);
      expect(res.status).toBe(200);
      polls++;
      got.push(...(res.body.events as Array<{ id: string }>).map((event) => event.id));
      after = res.body.nextCursor as string;
      if (res.body.events.length === 0) {
        if (!stillWriting) break;
        await sleep(random(5));
      }
    }
    return { got, polls };
  }

  it('a polling reader gets every committed event once, none rolled back, in an order consistent with commit order', async () => {
    const org = await createOrganization(app.t.prisma);
    const noise = await createOrganization(app.t.prisma);
    const url = app.t.database.url;
    const commits: Commit[] = [];
    const noiseCommits: Commit[] = [];

    let writing = true;
    const writers = Promise.all([
      ...Array.from({ length: 8 }, (_, w) => rawWriter(url, org.id, w, 30, commits)),
      ...Array.from({ length: 2 }, (_, w) => prismaWriter(org.id, 100 + w, 20, commits)),
      rawWriter(url, noise.id, 200, 30, noiseCommits),
    ]).finally(() => {
      writing = false;
    });

    const { got, polls } = await follow(org.apiKey, () => writing);
    const rolledBack = (await writers).reduce<number>((sum, n) => sum + (n ?? 0), 0);

    const toPublic = (uuid: string) => `evt_${uuid.replace(/-/g, '')}`;
    const committed = commits.flatMap((commit) => commit.ids.map(toPublic));
    // 0 missed, 0 repeated, nothing from a rolled-back transaction or another organization.
    expect(new Set(got).size).toBe(got.length);
    expect([...got].sort()).toEqual([...committed].sort());
    expect(got.length).toBeGreaterThan(200);
    expect(rolledBack).toBeGreaterThan(0);
    expect(polls).toBeGreaterThan(10);

    // Commit order: a transaction whose COMMIT returned before another's COMMIT was sent comes first,
    // and a transaction's events come together, in the order written.
    const indexOf = new Map(got.map((id, index) => [id, index]));
    const spans = commits.map((commit) => {
      const places = commit.ids.map((id) => indexOf.get(toPublic(id)) as number);
      return { ...commit, places, first: places[0], last: places[places.length - 1] };
    });
    for (const span of spans) expect(span.places).toEqual(span.places.map((_, k) => span.first + k));
    const violations = spans.flatMap((a) => spans.filter((b) => a.doneAt < b.sentAt && !(a.last < b.first)).map((b) => [a.ids[0], b.ids[0]]));
    expect(violations).toEqual([]);
    // The case the design is for did happen: transactions committed in another order than their
    // events' seq (taken at write time), so a reader paging by seq would have passed some by.
    const seqOf = new Map(
      (await app.t.prisma.$queryRaw<Array<{ id: string; seq: bigint }>>`SELECT id::text AS id, seq FROM events WHERE organization_id = ${org.id}`).map(
        (row) => [toPublic(row.id), row.seq],
      ),
    );
    const outOfSeqOrder = got.filter((id, index) => index > 0 && (seqOf.get(id) as bigint) < (seqOf.get(got[index - 1]) as bigint));
    expect(outOfSeqOrder.length).toBeGreaterThan(0);
  }, 180_000);
  /**
   * A transaction can take its commit position and still not commit: a deferred constraint that
   * runs after the position's trigger fails, or the backend is killed during the commit. Its
   * position is a hole that never fills; the reader must pass it (and never wait on it for ever)
   * and still return every later commit, once.
   */
  it('passes the position of a transaction that took one at COMMIT and then failed or was killed', async () => {
    const org = await createOrganization(app.t.prisma);
    const noise = await createOrganization(app.t.prisma);
    const url = app.t.database.url;
    // Runs after events_commit_position on each row (constraint triggers fire in name order).
    await app.t.prisma.$executeRawUnsafe(`
      CREATE FUNCTION test_fail_after_position() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.request_id LIKE 'abort-at-commit%' THEN
          PERFORM pg_sleep(random() * 0.03);
          RAISE EXCEPTION 'aborted after taking position %', currval('event_position_seq');
        ELSIF NEW.request_id LIKE 'kill-at-commit%' THEN
          PERFORM pg_sleep(10);
        ELSIF NEW.request_id LIKE 'slow-at-commit%' THEN
          PERFORM pg_sleep(random() * 0.1);
        END IF;
        RETURN NULL;
      END $$`);
    await app.t.prisma.$executeRawUnsafe(`
      CREATE CONSTRAINT TRIGGER events_zz_fail_after_position AFTER INSERT ON events
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_fail_after_position()`);

    const admin = new Client({ connectionString: url });
    await admin.connect();
    const commits: Commit[] = [];
    const holes: bigint[] = [];
    let killed = 0;

    /**
     * One transaction: commits (at once, or `slow`: waiting up to 100 ms inside its COMMIT after taking
     * its position, so positions become visible out of order: a reader without the horizon misses some), or fails at COMMIT after its position
     * (abort), or is killed at COMMIT after its position (kill).
     */
    async function transaction(organizationId: string, writer: number, mode: 'commit' | 'slow' | 'abort' | 'kill', into: Commit[]): Promise<void> {
      const client = new Client({ connectionString: url });
      client.on('error', () => undefined);
      await client.connect();
      try {
        const requestId = mode === 'commit' ? `w${writer}` : `${mode}-at-commit-${writer}`;
        await client.query('BEGIN');
        await writeEvents(client, organizationId, requestId, new Date(), eventsFor(organizationId, writer, 1 + random(3)));
        const { rows } = await client.query<{ id: string; pid: number }>(
          'SELECT id::text AS id, pg_backend_pid() AS pid FROM events WHERE xid = pg_current_xact_id() ORDER BY seq',
        );
        await sleep(random(20));
        const sentAt = tick();
        // The COMMIT's outcome, handled at once (a killed connection's error arrives before the kill returns).
        const failure = client.query('COMMIT').then(
          () => null,
          (error: Error) => error,
        );
        if (mode === 'kill') {
          // Kill it once it holds its organization's shared lock (the position is taken right after).
          for (;;) {
            const held = await admin.query(
              `SELECT 1 FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND mode = 'ShareLock' AND granted`,
              [rows[0].pid],
            );
            if (held.rowCount) break;
            await sleep(2);
          }
          await sleep(5);
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
          expect((await failure)?.message).toMatch(/terminat/);
          killed++;
          return;
        }
        if (mode === 'abort') {
          const hole = /aborted after taking position (\d+)/.exec((await failure)?.message ?? '');
          expect(hole).not.toBeNull();
          if (hole) holes.push(BigInt(hole[1]));
          return;
        }
        const error = await failure;
        if (error) throw error;
        into.push({ ids: rows.map((row) => row.id), sentAt, doneAt: tick() });
      } finally {
        await client.end().catch(() => undefined);
      }
    }

    async function writer(organizationId: string, w: number, transactions: number, into: Commit[]): Promise<void> {
      for (let i = 0; i < transactions; i++) {
        const dice = random(10);
        await transaction(organizationId, w, dice < 2 ? 'abort' : dice < 3 ? 'kill' : dice < 7 ? 'slow' : 'commit', into);
      }
    }

    let writing = true;
    const writers = Promise.all([
      ...Array.from({ length: 6 }, (_, w) => writer(org.id, w, 25, commits)),
      writer(noise.id, 200, 20, []),
    ]).finally(() => {
      writing = false;
    });
    const { got } = await follow(org.apiKey, () => writing);
    await writers;
    await admin.end();

    const toPublic = (uuid: string) => `evt_${uuid.replace(/-/g, '')}`;
    const committed = commits.flatMap((commit) => commit.ids.map(toPublic));
    expect(new Set(got).size).toBe(got.length);
    expect([...got].sort()).toEqual([...committed].sort());
    expect(holes.length).toBeGreaterThan(0);
    expect(killed).toBeGreaterThan(0);
    // Commits came after holes: the reader went past them.
    const positions = await app.t.prisma.$queryRaw<Array<{ position: bigint }>>`SELECT position FROM event_commits WHERE organization_id = ${org.id}`;
    const minHole = holes.reduce((a, b) => (a < b ? a : b));
    expect(positions.filter((row) => row.position > minHole).length).toBeGreaterThan(0);
    // Commit order, as above.
    const indexOf = new Map(got.map((id, index) => [id, index]));
    const spans = commits.map((commit) => {
      const places = commit.ids.map((id) => indexOf.get(toPublic(id)) as number);
      return { ...commit, first: places[0], last: places[places.length - 1] };
    });
    const violations = spans.flatMap((a) => spans.filter((b) => a.doneAt < b.sentAt && !(a.last < b.first)).map((b) => [a.ids[0], b.ids[0]]));
    expect(violations).toEqual([]);

    await app.t.prisma.$executeRawUnsafe('DROP TRIGGER events_zz_fail_after_position ON events');
    await app.t.prisma.$executeRawUnsafe('DROP FUNCTION test_fail_after_position()');
  }, 180_000);
});
