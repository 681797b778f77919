import { Client, type PoolClient } from 'pg';
import { Database } from '../../src/database/database';
import { EVENT_REDACTION_CHUNK } from '../../src/events/events.repository';
import { bootApp, Org } from '../contract/helpers';
import { erase } from '../contract/lifecycle-helpers';
import { countStatements } from '../utils/statement-counter';
import { ROOM_FOR_LOAD } from '../utils/test-app';

/**
 * An address with more events than EVENT_REDACTION_CHUNK is redacted in rounds inside the one
 * erasure transaction, never in one statement carrying every event's text: with tens of thousands
 * of events that one statement would pass the statement timeout, and the erase would answer 503
 * every time.
 */
describe('erasure of an address with more events than a redaction chunk', () => {
  // Three UPDATEs of up to 5,000 events each in one transaction: under CI's load one may pass the
  // default 5 s statement time-out; what is tested is the rounds, not a time: ROOM_FOR_LOAD.
  const app = bootApp(ROOM_FOR_LOAD);

  it('redacts them all in rounds of at most EVENT_REDACTION_CHUNK, in one transaction, the texts as for a few', async () => {
    const { org, list } = await Org.withList(app.t);
    const email = 'many.events@example.com';
    await org.postContact({ email, listIds: [list], fields: { firstName: 'Ada' } }).expect(201);
    const total = 2 * EVENT_REDACTION_CHUNK + 7;
    const db = new Client({ connectionString: app.t.database.url });
    await db.connect();
    try {
      // The contact.created event, copied: as many events of the address as updates would make.
      await db.query(
        `INSERT INTO events (organization_id, type, request_id, occurred_at, contact_id, email, body)
         SELECT e.organization_id, e.type, e.request_id, e.occurred_at, e.contact_id, e.email, e.body
         FROM events e, generate_series(2, $2::int) WHERE e.organization_id = $1 AND e.email = $3`,
        [org.id, total, email],
      );
      const { rows: before } = await db.query<{ body: string }>('SELECT body FROM events WHERE organization_id = $1 AND email = $2 LIMIT 1', [org.id, email]);
      const contactId = (JSON.parse(before[0].body) as { data: { contact: { id: string } } }).data.contact.id;

      const writes: number[] = [];
      const byClient = new Map<PoolClient, string[]>();
      const writers = new Set<PoolClient>();
      countStatements(app.t.app.get(Database).pool, (text, values, client) => {
        const isWrite = text.includes('UPDATE events e SET email = NULL');
        byClient.set(client, [...(byClient.get(client) ?? []), isWrite ? 'WRITE' : text.trim().split(/\s+/)[0].toUpperCase()]);
        if (isWrite) {
          writes.push((values[1] as unknown[]).length);
          writers.add(client);
        }
      });
      const res = await erase(org, email);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ contactDeleted: true, eventsRedacted: total });

      expect(writes).toEqual([EVENT_REDACTION_CHUNK, EVENT_REDACTION_CHUNK, 7]);
      // One transaction: every round on one connection, no transaction boundary between them.
      expect(writers.size).toBe(1);
      const sent = byClient.get([...writers][0])!;
      const between = sent.slice(sent.indexOf('WRITE'), sent.lastIndexOf('WRITE'));
      expect(between.filter((s) => ['BEGIN', 'COMMIT', 'ROLLBACK'].includes(s))).toEqual([]);
      expect(sent.slice(sent.lastIndexOf('WRITE')).find((s) => ['BEGIN', 'COMMIT', 'ROLLBACK'].includes(s))).toBe('COMMIT');

      const { rows: after } = await db.query<{ n: number; holding: number; bodies: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE email IS NOT NULL OR body ILIKE '%' || $2 || '%')::int AS holding,
                count(DISTINCT body)::int AS bodies
         FROM events WHERE organization_id = $1 AND contact_id = $3`,
        [org.id, email, contactId],
      );
      // every copy redacted, all to the same text (and contact.erased, which names no address)
      expect(after[0]).toEqual({ n: total + 1, holding: 0, bodies: 2 });
    } finally {
      await db.end();
    }
  });
});
