import { gzipSync } from 'node:zlib';
import { Database } from '../../src/database/database';
import { Org, bootApp, uniqueEmail } from '../contract/helpers';
import { holdEmailLock } from '../utils/fixtures';
import { ROOM_FOR_LOAD } from '../utils/test-app';
import { waitUntil } from '../utils/run-service';
import { finished, getImport, ndjson, results, upload } from './import-helpers';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked by value */

/**
 * Contract 17 on an instance that processes imports, two rows a chunk: IMPORT_CONCURRENCY's queue,
 * cancel of a running import, an import that ends `failed`, and bodies that cannot be decoded.
 * An import is held mid-chunk by a test transaction that holds the per-email lock of one of its
 * rows (rows take the POST endpoints' per-email serialization): the tests wait on what PostgreSQL
 * shows waiting, never for a fixed time.
 */
describe('imports processed (contract 17): queue order, cancel while running, failed', () => {
  // Lock waits and the held transaction last as long as a test needs (the defaults would end them).
  const app = bootApp({ ...ROOM_FOR_LOAD, IMPORT_CHUNK_ROWS: '2', DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '60000' });

  const holdEmail = (organizationId: string, email: string) => holdEmailLock(app.t.app, organizationId, email);

  /** Backends of this test's database waiting for a lock while running a statement that contains `sql`. */
  async function waitingOn(sql: string): Promise<number> {
    const [row] = await app.t.app
      .get(Database)
      .query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND position($1 in query) > 0`,
        [sql],
      );
    return row.n;
  }
  /** A chunk waits for the held email (the pipeline's lock statement). */
  const chunkHeld = async () => (await waitingOn('pg_advisory_xact_lock(k)')) === 1;

  const cancel = (org: Org, id: string) => org.t.http().post(`/api/v2/imports/${id}/cancel`).set('Authorization', `Bearer ${org.key}`);
  const eventsOf = (org: Org) => org.t.prisma.event.findMany({ where: { organizationId: org.id }, orderBy: { seq: 'asc' } });
  const emailsOf = async (org: Org) =>
    (await org.t.prisma.contact.findMany({ where: { organizationId: org.id }, select: { email: true } })).map((c) => c.email).sort();

  it('IMPORT_CONCURRENCY 1: later imports of the organization wait queued and start in upload order; another organization’s import runs meanwhile', async () => {
    const { org, list } = await Org.withList(app.t);
    const other = await Org.withList(app.t);
    const held = uniqueEmail();
    const lock = await holdEmail(org.id, held);
    let ids: string[];
    try {
      const first = (await upload(org, ndjson([{ email: held, listIds: [list] }]))).body.import.id as string;
      await waitUntil('the first import holds a chunk, waiting for the email', chunkHeld);
      const later: string[] = [];
      for (let i = 0; i < 2; i++) later.push((await upload(org, ndjson([{ email: uniqueEmail(), listIds: [list] }]))).body.import.id as string);
      ids = [first, ...later];
      expect(await getImport(org, first)).toMatchObject({ status: 'running', processed: 0 });

      const elsewhere = (await upload(other.org, ndjson([{ email: uniqueEmail(), listIds: [other.list] }]))).body.import.id as string;
      expect(await finished(other.org, elsewhere)).toMatchObject({ status: 'completed', counts: { created: 1 } });
      for (const id of later) expect(await getImport(org, id)).toMatchObject({ status: 'queued', startedAt: null, processed: 0 });
      expect((await getImport(org, first)).status).toBe('running');
    } finally {
      await lock.release();
    }
    const ended = [];
    for (const id of ids) ended.push(await finished(org, id));
    for (const view of ended) expect(view).toMatchObject({ status: 'completed', processed: 1, counts: { created: 1 } });
    // One at a time, in upload order: each starts once the one before has ended.
    for (let i = 1; i < ended.length; i++) {
      expect(Date.parse(ended[i].startedAt)).toBeGreaterThanOrEqual(Date.parse(ended[i - 1].finishedAt));
    }
  });

  it('cancel of a running import: answered once the chunk in progress committed; later rows get no result and are not applied; import.finished', async () => {
    const { org, list } = await Org.withList(app.t);
    // The cancel waits on the import's row, which the held chunk has updated; once that chunk
    // commits, the worker's next chunk can lock the row's new version before the cancel does
    // (PostgreSQL keeps no place in line across an update), and the cancel then takes effect a
    // chunk or more later. Enough rows that the import is still running when it does.
    const rows = 20;
    const emails = Array.from({ length: rows }, () => uniqueEmail());
    const lock = await holdEmail(org.id, emails[2]); // row 3: the second chunk (rows 3 and 4) waits
    let answer: any;
    let uploaded: any;
    try {
      uploaded = (await upload(org, ndjson(emails.map((email) => ({ email, listIds: [list] }))))).body;
      await waitUntil('the second chunk waits for the email of row 3', chunkHeld);
      expect(await getImport(org, uploaded.import.id)).toMatchObject({ status: 'running', processed: 2 });
      const cancelling = cancel(org, uploaded.import.id).then((res) => res);
      await waitUntil('the cancel waits for the chunk in progress', async () => (await waitingOn("status = 'cancelled'")) === 1);
      await lock.release();
      answer = await cancelling;
    } finally {
      await lock.release();
    }
    // On failure: the answer and the import as it is now.
    expect({ status: answer.status, body: answer.body, importNow: await getImport(org, uploaded.import.id) }).toMatchObject({ status: 200 });
    const view = answer.body.import;
    const processed: number = view.processed;
    // The held chunk committed before the answer; the cancel stopped the import before its end.
    expect(processed).toBeGreaterThanOrEqual(4);
    expect(processed).toBeLessThan(rows);
    expect(processed % 2).toBe(0); // whole chunks only
    expect(view).toMatchObject({ id: uploaded.import.id, status: 'cancelled', rows, counts: { created: processed, updated: 0, unchanged: 0, failed: 0 }, error: null });
    expect(view.finishedAt).not.toBeNull();
    expect(await getImport(org, view.id)).toEqual(view);

    // The organization's next import runs to its end: the cancelled one's processing has stopped by then.
    const next = (await upload(org, ndjson([{ email: uniqueEmail(), listIds: [list] }]))).body.import.id as string;
    expect((await finished(org, next)).status).toBe('completed');
    expect(await getImport(org, view.id)).toEqual(view);
    expect((await results(org, view.id)).map((line) => [line.row, line.email, line.status])).toEqual(
      emails.slice(0, processed).map((email, i) => [i + 1, email, 'created']),
    );
    const stored = await emailsOf(org);
    for (const email of emails.slice(0, processed)) expect(stored).toContain(email);
    for (const email of emails.slice(processed)) expect(stored).not.toContain(email);

    const finishedEvents = (await eventsOf(org)).filter((e) => e.type === 'import.finished' && JSON.parse(e.body).data.import.id === view.id);
    expect(finishedEvents.map((e) => e.requestId)).toEqual([uploaded.request_id]);
    expect(JSON.parse(finishedEvents[0].body).data.import).toEqual(view);
    expect((await cancel(org, view.id)).body.error.code).toBe('IMPORT_FINISHED');
  });

  it('an import the service cannot finish (its CSV header names a field deleted after the upload) ends failed, with import.finished', async () => {
    const { org, list } = await Org.withList(app.t, [{ key: 'nickname', type: 'text' }]);
    const held = uniqueEmail();
    const email = uniqueEmail();
    const lock = await holdEmail(org.id, held);
    let uploaded: any;
    let blocker: string;
    try {
      // An import of the organization runs (held): the CSV import waits queued behind it.
      blocker = (await upload(org, ndjson([{ email: held, listIds: [list] }]))).body.import.id as string;
      await waitUntil('the first import holds a chunk, waiting for the email', chunkHeld);
      uploaded = (await upload(org, `email,listIds,nickname\r\n${email},${list},Nick\r\n`, { contentType: 'text/csv' })).body;
      expect(uploaded.import).toMatchObject({ status: 'queued', format: 'csv', rows: 1 });
      await org.t.prisma.customField.deleteMany({ where: { organizationId: org.id, key: 'nickname' } });
    } finally {
      await lock.release();
    }
    expect((await finished(org, blocker)).status).toBe('completed');
    const view = await finished(org, uploaded.import.id);
    expect(view).toMatchObject({
      status: 'failed',
      rows: 1,
      processed: 0,
      counts: { created: 0, updated: 0, unchanged: 0, failed: 0 },
      codes: {},
      error: { code: 'IMPORT_FAILED', message: expect.stringContaining('nickname') },
    });
    expect(view.startedAt).not.toBeNull();
    expect(view.finishedAt).not.toBeNull();
    expect(await results(org, view.id)).toEqual([]);
    expect(await emailsOf(org)).toEqual([held]);
    const finishedEvents = (await eventsOf(org)).filter((e) => e.type === 'import.finished' && JSON.parse(e.body).data.import.id === view.id);
    expect(finishedEvents.map((e) => e.requestId)).toEqual([uploaded.request_id]);
    expect(JSON.parse(finishedEvents[0].body).data.import).toEqual(view);
  });

  it('a body its Content-Encoding does not decode is 400 INVALID_REQUEST, for CSV and NDJSON, and keeps nothing', async () => {
    const { org } = await Org.withList(app.t);
    for (const contentType of ['text/csv', 'application/x-ndjson']) {
      const res = await upload(org, Buffer.from('email\r\nnot gzip at all\r\n'), { contentType, headers: { 'Content-Encoding': 'gzip' } });
      expect([res.status, res.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
      // Cut short: the header of a gzip member, then nothing.
      const cut = await upload(org, gzipSync('email\r\na@example.com\r\n').subarray(0, 12), { contentType, headers: { 'Content-Encoding': 'gzip' } });
      expect([cut.status, cut.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
    }
    expect(await org.t.prisma.import.count({ where: { organizationId: org.id } })).toBe(0);
  });
});
