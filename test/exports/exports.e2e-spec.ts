import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Database } from '../../src/database/database';
import { streamExport } from '../../src/exports/export-stream';
import { createApiKey, createOrgWith } from '../utils/fixtures';
import { ROOM_FOR_LOAD, useTestApp } from '../utils/test-app';
import { orgWithFillerContacts } from './filler-contacts';

/**
 * GET /api/v2/contacts/export (contract section 17, docs/api.md "Exports"): the two formats, the
 * filters, the scope, the two-at-once limit, a stream cut when the service cannot finish it.
 * The export plus the feed from its cursor: export-feed.e2e-spec.ts.
 */
describe('GET /api/v2/contacts/export', () => {
  const app = useTestApp(ROOM_FOR_LOAD);

  const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
  const exportOf = (key: string, query = '') =>
    app.t.http().get(`/api/v2/contacts/export${query}`).set(auth(key)).buffer(true).parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
  const lines = (text: string) => text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);

  async function orgWithContacts() {
    const org = await createOrgWith(app.t.prisma, {
      lists: ['A', 'B'],
      fields: [
        { key: 'score', type: 'number' },
        { key: 'Vip', type: 'boolean' },
        { key: 'since', type: 'date' },
        { key: 'note', type: 'text' },
      ],
    });
    const [a, b] = org.lists.map((list) => list.id);
    const contacts = [
      { email: 'carol@example.com', listIds: [a], fields: { firstName: 'Carol', score: 1.5, Vip: true, since: '2026-01-31' } },
      { email: 'alice@example.com', listIds: [a, b], fields: { firstName: 'Alice "Al"', city: 'Oslo, NO', note: 'two\nlines' } },
      { email: 'bob@example.com', listIds: [b], fields: { score: -2, Vip: false } },
    ];
    const created = await app.t.http().post('/api/v2/contacts/batch').set(auth(org.apiKey)).send({ contacts });
    expect(created.status).toBe(200);
    await app.t.http().post('/api/v2/suppressions').set(auth(org.apiKey)).send({ suppressions: [{ email: 'bob@example.com', reason: 'bounced' }] }).expect(200);
    return { ...org, a, b };
  }

  it('NDJSON: every contact as GET /contacts/{email} shows it, by email, chunked, with the feed cursor', async () => {
    const org = await orgWithContacts();
    const res = await exportOf(org.apiKey);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['x-feed-cursor']).toMatch(/^[A-Za-z0-9_-]+$/);
    const exported = lines(res.body as string);
    expect(exported.map((c) => c.email)).toEqual(['alice@example.com', 'bob@example.com', 'carol@example.com']);
    for (const contact of exported) {
      const one = await app.t.http().get(`/api/v2/contacts/${encodeURIComponent(contact.email as string)}`).set(auth(org.apiKey));
      expect(one.body.contact).toEqual(contact);
    }
    // The cursor is the feed's head here: nothing follows it, and it is this organization's.
    const feed = await app.t.http().get(`/api/v2/events?after=${res.headers['x-feed-cursor']}`).set(auth(org.apiKey));
    expect(feed.status).toBe(200);
    expect(feed.body.events).toEqual([]);
  });

  it('CSV: header, standard then custom fields in byte order, ; joined lists, the reason, RFC 4180 quoting', async () => {
    const org = await orgWithContacts();
    // Lists joined to in one request are in id order (the listing's order: membership time, then id).
    const res = await exportOf(org.apiKey, '?format=csv');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['x-feed-cursor']).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(res.body).toBe(
      'email,listIds,suppressed,firstName,lastName,phone,company,jobTitle,city,country,Vip,note,score,since\r\n' +
        `alice@example.com,${[org.a, org.b].sort().join(';')},,"Alice ""Al""",,,,,"Oslo, NO",,,"two\nlines",,\r\n` +
        `bob@example.com,${org.b},bounced,,,,,,,,false,,-2,\r\n` +
        `carol@example.com,${org.a},,Carol,,,,,,,true,,1.5,2026-01-31\r\n`,
    );
  });

  it('filters as the listing: listId, suppressed, updatedSince; an unknown list is 404, bad values 400', async () => {
    const org = await orgWithContacts();
    const emails = async (query: string) => lines((await exportOf(org.apiKey, query)).body as string).map((c) => c.email);
    expect(await emails(`?listId=${org.b}`)).toEqual(['alice@example.com', 'bob@example.com']);
    expect(await emails('?suppressed=true')).toEqual(['bob@example.com']);
    expect(await emails(`?suppressed=false&listId=${org.a}`)).toEqual(['alice@example.com', 'carol@example.com']);
    expect(await emails(`?updatedSince=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    expect(await emails('?updatedSince=2000-01-01T00:00:00Z&format=ndjson')).toHaveLength(3);
    // With updatedSince the rows come from their own statement (lookups per contact, not the joins): the same bytes.
    for (const format of ['ndjson', 'csv']) {
      const all = await exportOf(org.apiKey, `?format=${format}`);
      expect((await exportOf(org.apiKey, `?format=${format}&updatedSince=2000-01-01T00:00:00Z`)).body).toBe(all.body);
    }
    expect(await emails(`?updatedSince=2000-01-01T00:00:00Z&listId=${org.b}`)).toEqual(['alice@example.com', 'bob@example.com']);
    expect(await emails('?updatedSince=2000-01-01T00:00:00Z&suppressed=true')).toEqual(['bob@example.com']);

    const other = await createOrgWith(app.t.prisma, { lists: ['Theirs'] });
    for (const [query, status, code] of [
      [`?listId=${other.lists[0].id}`, 404, 'LIST_NOT_FOUND'],
      ['?listId=nope', 404, 'LIST_NOT_FOUND'],
      ['?format=xml', 400, 'INVALID_REQUEST'],
      ['?suppressed=yes', 400, 'INVALID_REQUEST'],
      ['?updatedSince=yesterday', 400, 'INVALID_REQUEST'],
      ['?limit=10', 400, 'INVALID_REQUEST'],
      ['?format=csv&format=ndjson', 400, 'INVALID_REQUEST'],
    ] as const) {
      const res = await app.t.http().get(`/api/v2/contacts/export${query}`).set(auth(org.apiKey));
      expect([query, res.status, res.headers['content-type'], res.body.error?.code]).toEqual([query, status, expect.stringMatching(/^application\/json/), code]);
    }
  });

  it('needs contacts:read (a read-only key exports) and counts one request toward the limit', async () => {
    const org = await orgWithContacts();
    const reader = await createApiKey(app.t.prisma, org.id, { scope: 'contacts:read' });
    const res = await exportOf(reader.key);
    expect(res.status).toBe(200);
    expect(lines(res.body as string)).toHaveLength(3);
    const remaining = Number(res.headers['x-ratelimit-remaining']);
    const next = await exportOf(reader.key);
    expect(Number(next.headers['x-ratelimit-remaining'])).toBe(remaining - 1);
    const none = await app.t.http().get('/api/v2/contacts/export');
    expect(none.status).toBe(401);
  });

  it('a third concurrent export is 429 TOO_MANY_EXPORTS with Retry-After; a slot frees when an export ends', async () => {
    const org = await orgWithContacts();
    const database = app.t.app.get(Database);
    // Two exports whose receivers never take a byte: each holds its slot while it waits to write.
    const stalled = () => new Writable({ highWaterMark: 1, write: () => undefined });
    const sinks = [stalled(), stalled()];
    let opened = 0;
    const running = sinks.map((sink) =>
      streamExport(database, { organizationId: org.id, filters: { listId: null, suppressed: null, updatedSince: null }, format: 'ndjson' }, sink, () => opened++).catch(
        (error: Error) => error.name,
      ),
    );
    while (opened < 2) await new Promise((resolve) => setTimeout(resolve, 20));

    const third = await app.t.http().get('/api/v2/contacts/export').set(auth(org.apiKey));
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('TOO_MANY_EXPORTS');
    expect(third.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    // Another organization is not limited by this one's exports.
    const other = await createOrgWith(app.t.prisma);
    expect((await exportOf(other.apiKey)).status).toBe(200);

    sinks[0].destroy();
    await running[0];
    expect((await exportOf(org.apiKey)).status).toBe(200);
    sinks[1].destroy();
    await running[1];
  });

  it('a stream the service cannot finish is cut without its last chunk', async () => {
    const { org, pg } = await orgWithFillerContacts(app.t, 40000);
    try {
      const { port } = (app.t.app.getHttpServer()).address() as AddressInfo;
      const outcome = await new Promise<{ ended: boolean; bytes: number; status: number }>((resolve) => {
        const req = http.get({ port, host: '127.0.0.1', path: '/api/v2/contacts/export', headers: auth(org.apiKey) }, (res) => {
          let bytes = 0;
          let killed = false;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (killed) return;
            killed = true;
            // The export's connection dies mid-stream (as in a database restart).
            res.pause();
            void pg
              .query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid IN (1163415600, 1163415601) AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
              .then(() => setTimeout(() => res.resume(), 200));
          });
          res.on('end', () => resolve({ ended: true, bytes, status: res.statusCode ?? 0 }));
          res.on('error', () => resolve({ ended: false, bytes, status: res.statusCode ?? 0 }));
          res.on('aborted', () => resolve({ ended: false, bytes, status: res.statusCode ?? 0 }));
        });
        req.on('error', () => resolve({ ended: false, bytes: 0, status: 0 }));
      });
      expect(outcome.status).toBe(200);
      expect(outcome.bytes).toBeGreaterThan(0);
      expect(outcome.ended).toBe(false);
      // The service still answers, and the slot was freed with the connection.
      expect((await exportOf(org.apiKey, '?updatedSince=2100-01-01T00:00:00Z')).status).toBe(200);
    } finally {
      await pg.end();
    }
  });
});
