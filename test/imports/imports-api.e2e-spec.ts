import { Org, bootApp, uniqueEmail } from '../contract/helpers';
import { finished, getImport, ndjson, results, upload } from './import-helpers';

/**
 * Contract section 17, "Imports": the upload's checks and answer, the per-row codes, results,
 * cancel, reads, dry runs, import.finished and erasure.
 */
describe('Imports (contract 17)', () => {
  const app = bootApp({ IMPORT_MAX_ROWS: '50', IMPORT_MAX_BYTES: '20000' });
  let org: Org;
  let list: string;
  beforeEach(async () => {
    ({ org, list } = await Org.withList(app.t));
  });

  it('takes an NDJSON file: 202 with Location, every row applied in file order with exactly its result', async () => {
    const [a, b] = [uniqueEmail(), uniqueEmail()];
    const res = await upload(org, ndjson([{ email: a, listIds: [list] }, '', { email: ` ${b.toUpperCase()} `, listIds: [list], fields: { firstName: 'B' } }]), {
      headers: { 'X-Client-Request-Id': 'imp-1' },
    });
    expect(res.status).toBe(202);
    expect(res.headers['x-client-request-id']).toBe('imp-1');
    const created = res.body.import;
    expect(res.headers.location).toBe(`/api/v2/imports/${created.id}`);
    expect(created.id).toMatch(/^imp_[0-9a-f]{32}$/);
    expect(Object.keys(created)).toEqual([
      'id', 'status', 'format', 'overwrite', 'dryRun', 'rows', 'processed', 'counts', 'codes', 'clientRequestId', 'createdAt', 'startedAt', 'finishedAt', 'error',
    ]);
    expect(created).toMatchObject({ format: 'ndjson', rows: 2, overwrite: false, dryRun: false, clientRequestId: 'imp-1' });
    const done = await finished(org, created.id);
    expect(done).toMatchObject({ status: 'completed', processed: 2, counts: { created: 2, updated: 0, unchanged: 0, failed: 0 }, codes: {}, error: null });
    const lines = await results(org, created.id);
    expect(lines.map((line) => [line.row, line.email, line.status])).toEqual([[1, a, 'created'], [2, b, 'created']]);
    expect(Object.keys(lines[0])).toEqual(['row', 'email', 'status', 'id']);
    const contact = await org.t.http().get(`/api/v2/contacts/${encodeURIComponent(b)}`).set('Authorization', `Bearer ${org.key}`);
    expect(contact.status).toBe(200);
    expect(JSON.stringify(contact.body)).toContain('"firstName":"B"');
  });

  it('gives INVALID_ROW, INVALID_EMAIL and DUPLICATE_IN_REQUEST per row, and filters results by status', async () => {
    const a = uniqueEmail();
    const file = ndjson([
      { email: a, listIds: [list] },
      'not json',
      { email: a, listIds: [list] },
      { email: 5, listIds: [list] },
      { email: uniqueEmail(), listIds: 'x' },
      { email: uniqueEmail(), listIds: [list], extra: 1 },
      { email: 'bad', listIds: [list] },
    ]);
    const { body } = await upload(org, file);
    const done = await finished(org, body.import.id);
    expect(done.counts).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 6 });
    expect(done.codes).toEqual({ INVALID_ROW: 3, DUPLICATE_IN_REQUEST: 1, INVALID_EMAIL: 2 });
    const failed = await results(org, body.import.id, 'failed');
    expect(failed.map((line) => [line.row, line.code])).toEqual([
      [2, 'INVALID_ROW'], [3, 'DUPLICATE_IN_REQUEST'], [4, 'INVALID_EMAIL'], [5, 'INVALID_ROW'], [6, 'INVALID_ROW'], [7, 'INVALID_EMAIL'],
    ]);
    expect(failed[1]).toMatchObject({ email: a, status: 'failed' });
    expect(failed[2].email).toBeNull();
    expect((await results(org, body.import.id, 'created')).map((line) => line.row)).toEqual([1]);
    const bad = await org.t.http().get(`/api/v2/imports/${body.import.id}/results?status=nope`).set('Authorization', `Bearer ${org.key}`);
    expect(bad.status).toBe(400);
  });

  it('takes gzip and CSV (typed cells, empty cells not given, LF and CRLF in one file) and refuses a bad header naming the column', async () => {
    await org.field('score', 'number');
    const a = uniqueEmail();
    const csv = `\uFEFFemail,listIds,suppressed,firstName,score\r\n${a},${list};;,,Ann,12.5\n\r\n${uniqueEmail()},${list},,,abc\r\n`;
    const { status, body } = await upload(org, csv, { contentType: 'text/csv; charset=utf-8', gzip: true });
    expect(status).toBe(202);
    expect(body.import).toMatchObject({ format: 'csv', rows: 2 });
    const done = await finished(org, body.import.id);
    expect(done.counts).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 1 });
    expect(done.codes).toEqual({ FIELD_TYPE_MISMATCH: 1 });
    const contact = await org.t.http().get(`/api/v2/contacts/${encodeURIComponent(a)}`).set('Authorization', `Bearer ${org.key}`);
    expect(JSON.stringify(contact.body)).toContain('"fields":{"firstName":"Ann","score":12.5}');

    for (const header of ['listIds,firstName', 'email,email', 'email,nosuch']) {
      const refused = await upload(org, `${header}\r\nx@example.com,a\r\n`, { contentType: 'text/csv' });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('INVALID_REQUEST');
      expect(refused.body.error.message).toContain(header === 'listIds,firstName' ? 'email' : header.split(',')[1]);
    }
    expect(await org.t.prisma.import.count({ where: { organizationId: org.id } })).toBe(1);
  });

  it('refuses media types, charsets, empty files and files over the limits, keeping nothing', async () => {
    const cases: Array<[number, Promise<{ status: number }>]> = [
      [400, upload(org, ndjson([{ email: uniqueEmail() }]), { contentType: 'application/json' })],
      [400, upload(org, ndjson([{ email: uniqueEmail() }]), { contentType: 'application/x-ndjson; charset=latin1' })],
      [400, upload(org, '\n  \n')],
      [413, upload(org, ndjson(Array.from({ length: 51 }, () => ({ email: uniqueEmail(), listIds: [list] }))))],
      [413, upload(org, 'x'.repeat(20001))],
      [413, upload(org, `${JSON.stringify({ email: 'a@example.com', fields: { firstName: 'x'.repeat(30000) } })}\n`, { gzip: true })],
    ];
    for (const [expected, pending] of cases) expect((await pending).status).toBe(expected);
    expect(await org.t.prisma.import.count({ where: { organizationId: org.id } })).toBe(0);
    expect(await org.t.prisma.importRow.count({ where: { import: { organizationId: org.id } } })).toBe(0);
  });

  it('dryRun computes results and writes no contact and no event', async () => {
    const { body } = await upload(org, ndjson([{ email: uniqueEmail(), listIds: [list] }]), { query: 'dryRun=true' });
    const done = await finished(org, body.import.id);
    expect(done).toMatchObject({ dryRun: true, counts: { created: 1 } });
    expect(Object.keys((await results(org, body.import.id))[0])).toEqual(['row', 'email', 'status']);
    expect(await org.t.prisma.contact.count({ where: { organizationId: org.id } })).toBe(0);
    expect(await org.t.prisma.event.count({ where: { organizationId: org.id } })).toBe(0);
  });

  it('writes import.finished with the POST request id, and the rows events under it', async () => {
    const { body } = await upload(org, ndjson([{ email: uniqueEmail(), listIds: [list] }]));
    await finished(org, body.import.id);
    const events = await org.t.prisma.event.findMany({ where: { organizationId: org.id }, orderBy: { seq: 'asc' } });
    expect(events.map((event) => [event.type, event.requestId])).toEqual([
      ['contact.created', body.request_id],
      ['import.finished', body.request_id],
    ]);
    const finishedEvent = JSON.parse(events[1].body);
    expect(finishedEvent.data.import).toEqual(await getImport(org, body.import.id));
  });

  it('cancel: 409 IMPORT_FINISHED once ended; 404 IMPORT_NOT_FOUND for unknown, malformed and foreign ids', async () => {
    const { body } = await upload(org, ndjson([{ email: uniqueEmail(), listIds: [list] }]));
    await finished(org, body.import.id);
    const cancel = (id: string, key = org.key) => org.t.http().post(`/api/v2/imports/${id}/cancel`).set('Authorization', `Bearer ${key}`);
    expect((await cancel(body.import.id)).status).toBe(409);
    expect((await cancel(body.import.id)).body.error.code).toBe('IMPORT_FINISHED');
    const other = await Org.create(app.t);
    for (const response of [await cancel('imp_0123', org.key), await cancel(body.import.id, other.key), await cancel(`imp_${'0'.repeat(32)}`)]) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('IMPORT_NOT_FOUND');
    }
    const get = await org.t.http().get('/api/v2/imports/nope').set('Authorization', `Bearer ${org.key}`);
    expect(get.body.error.code).toBe('IMPORT_NOT_FOUND');
  });

  it('lists newest first with cursors, and finds imports by clientRequestId', async () => {
    const ids: string[] = [];
    for (const client of ['c-1', 'c-2', 'c-1']) {
      const { body } = await upload(org, ndjson([{ email: uniqueEmail(), listIds: [list] }]), { headers: { 'X-Client-Request-Id': client } });
      ids.push(body.import.id);
    }
    const get = (query: string) => org.t.http().get(`/api/v2/imports?${query}`).set('Authorization', `Bearer ${org.key}`);
    const first = await get('limit=2');
    expect(first.body.imports.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[1]]);
    const second = await get(`limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.imports.map((i: { id: string }) => i.id)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeNull();
    expect((await get('clientRequestId=c-1')).body.imports.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[0]]);
    expect((await get('clientRequestId=none')).body.imports).toEqual([]);
    expect((await get('clientRequestId=a%20b')).status).toBe(400);
    expect((await get('limit=0')).status).toBe(400);
    for (const id of ids) await finished(org, id);
  });

  it('erasure removes the address from import rows; the result line keeps its place with email null', async () => {
    const a = uniqueEmail();
    const { body } = await upload(org, ndjson([{ email: a, listIds: [list] }, { email: uniqueEmail(), listIds: [list] }]));
    await finished(org, body.import.id);
    const admin = await org.newKey({ scope: 'admin' });
    const erased = await org.t.http().post(`/api/v2/contacts/${encodeURIComponent(a)}/erase`).set('Authorization', `Bearer ${admin}`);
    expect(erased.status).toBe(200);
    expect(erased.body.importRowsErased).toBe(1);
    const lines = await results(org, body.import.id);
    expect(lines.map((line) => [line.row, line.email === null])).toEqual([[1, true], [2, false]]);
    const row = await org.t.prisma.importRow.findUnique({ where: { importId_row: { importId: body.import.id, row: 1 } } });
    expect(row).toMatchObject({ line: null, email: null });
  });
});
