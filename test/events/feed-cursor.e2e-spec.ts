import { createHash } from 'node:crypto';
import type { NewEvent } from '../../src/events/event-types';
import { EventsRepository } from '../../src/events/events.repository';
import { createOrganization } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';

/**
 * The feed's cursor is a place in a sequence every organization shares (docs/events.md, "The
 * feed"), so the feed refuses, as 400 INVALID_REQUEST, the two cursors it never handed to the
 * caller, which would otherwise be waited at while events below them went by unseen: another
 * organization's, and one ahead of every event. Cursors from before the organization tag are still read.
 * White box: the cursors are spelled here as event-cursor.ts spells them.
 */
describe('GET /api/v2/events: cursors the feed never handed out', () => {
  const app = useTestApp();

  const spell = (text: string) => Buffer.from(text, 'latin1').toString('base64url');
  const place = (cursor: string) => Buffer.from(cursor, 'base64url').toString('latin1').split('.');
  const feed = (apiKey: string, query = '') => app.t.http().get(`/api/v2/events${query}`).set('Authorization', `Bearer ${apiKey}`);
  const record = async (organizationId: string, name: string) => {
    const event: NewEvent = { organizationId, type: 'list.created', requestId: name, data: { list: { id: name, name, archived: false } } };
    await app.t.prisma.database.transaction((tx) => app.t.app.get(EventsRepository).record(tx, [event]));
  };
  const names = (res: { body: { events: Array<{ requestId: string }> } }) => res.body.events.map((e) => e.requestId);

  it("carries the organization's tag; an untagged cursor (before the tag) reads the same events", async () => {
    const org = await createOrganization(app.t.prisma);
    for (const name of ['a', 'b', 'c']) await record(org.id, name);
    const first = await feed(org.apiKey, '?limit=1');
    expect(first.status).toBe(200);
    const [position, seq, tag] = place(first.body.nextCursor);
    expect(tag).toBe(createHash('sha256').update(org.id).digest('hex').slice(0, 8));

    const untagged = await feed(org.apiKey, `?after=${spell(`${position}.${seq}`)}`);
    expect(untagged.status).toBe(200);
    expect(names(untagged)).toEqual(['b', 'c']);
    expect(untagged.body).toEqual({ ...(await feed(org.apiKey, `?after=${first.body.nextCursor}`)).body, request_id: untagged.body.request_id });
  });

  it("another organization's cursor is 400, and reading the feed from the right one misses nothing", async () => {
    const org = await createOrganization(app.t.prisma);
    const other = await createOrganization(app.t.prisma);
    await record(org.id, 'mine');
    await record(other.id, 'theirs');
    const theirs = (await feed(other.apiKey)).body.nextCursor as string;
    const refused = await feed(org.apiKey, `?after=${theirs}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { code: 'INVALID_REQUEST', message: expect.stringContaining("another organization's") } });
    expect(names(await feed(org.apiKey))).toEqual(['mine']);
  });

  it('a cursor ahead of every event is 400, also when the service knew an older horizon; the head itself is not', async () => {
    const org = await createOrganization(app.t.prisma);
    await record(org.id, 'a');
    const head = (await feed(org.apiKey)).body.nextCursor as string; // the service learns a horizon
    const [position, , tag] = place(head);
    for (const ahead of [`${BigInt(position) + 1_000_000n}.0.${tag}`, `${BigInt(position) + 1_000_000n}.0`, `9223372036854775807.0.${tag}`]) {
      const refused = await feed(org.apiKey, `?after=${spell(ahead)}`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { code: 'INVALID_REQUEST', message: expect.stringContaining('not a cursor this endpoint returned') } });
    }
    // The head: an empty page, the same cursor, then what committed since.
    const atHead = await feed(org.apiKey, `?after=${head}`);
    expect(atHead.status).toBe(200);
    expect(atHead.body).toMatchObject({ events: [], nextCursor: head });
    await record(org.id, 'b');
    expect(names(await feed(org.apiKey, `?after=${head}`))).toEqual(['b']);
  });
});
