import { Org, bootApp, uniqueEmail } from '../contract/helpers';
import { ImportWorker } from '../../src/imports/import-worker.service';
import { getImport, ndjson, results, upload } from './import-helpers';

/**
 * Contract 17, cancel: a queued import is cancelled at once (no row processed), import.finished
 * is written, and a second cancel is 409 IMPORT_FINISHED. This instance processes no imports, so
 * the import stays queued until cancelled.
 */
describe('imports on an instance that processes none: cancel, scopes, retention', () => {
  // Retention of about 0.9 s: a cancelled import is swept by the next sweep after that.
  const app = bootApp({ IMPORT_PROCESSING: 'false', IMPORT_RETENTION_DAYS: '0.00001' });

  it('is cancelled at once: no row processed, no result, import.finished written; then 409', async () => {
    const { org, list } = await Org.withList(app.t);
    const { body } = await upload(org, ndjson([{ email: uniqueEmail(), listIds: [list] }, { email: uniqueEmail(), listIds: [list] }]));
    expect(body.import.status).toBe('queued');
    const cancel = () => org.t.http().post(`/api/v2/imports/${body.import.id}/cancel`).set('Authorization', `Bearer ${org.key}`);
    const first = await cancel();
    expect(first.status).toBe(200);
    expect(first.body.import).toMatchObject({ status: 'cancelled', rows: 2, processed: 0, counts: { created: 0, updated: 0, unchanged: 0, failed: 0 } });
    expect(first.body.import.finishedAt).not.toBeNull();
    expect(await getImport(org, body.import.id)).toEqual(first.body.import);
    expect(await results(org, body.import.id)).toEqual([]);
    const events = await org.t.prisma.event.findMany({ where: { organizationId: org.id } });
    expect(events.map((event) => [event.type, event.requestId])).toEqual([['import.finished', body.request_id]]);
    expect(JSON.parse(events[0].body).data.import).toEqual(first.body.import);
    const again = await cancel();
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('IMPORT_FINISHED');
    expect(await org.t.prisma.contact.count({ where: { organizationId: org.id } })).toBe(0);
  });

  it('needs contacts:write to upload or cancel, contacts:read to read', async () => {
    const { org, list } = await Org.withList(app.t);
    const reader = await org.newKey({ scope: 'contacts:read' });
    const asReader = new Org(app.t, org.id, reader);
    const refused = await upload(asReader, ndjson([{ email: uniqueEmail(), listIds: [list] }]));
    expect(refused.status).toBe(403);
    const { body } = await upload(org, ndjson([{ email: uniqueEmail(), listIds: [list] }]));
    expect((await app.t.http().get(`/api/v2/imports/${body.import.id}`).set('Authorization', `Bearer ${reader}`)).status).toBe(200);
    expect((await app.t.http().post(`/api/v2/imports/${body.import.id}/cancel`).set('Authorization', `Bearer ${reader}`)).status).toBe(403);
  });

  it('deletes an ended import and its rows after IMPORT_RETENTION_DAYS (404), keeping one that has not ended', async () => {
    const { org, list } = await Org.withList(app.t);
    const ended = (await upload(org, ndjson([{ email: uniqueEmail(), listIds: [list] }]))).body.import.id as string;
    const queued = (await upload(org, ndjson([{ email: uniqueEmail(), listIds: [list] }]))).body.import.id as string;
    await org.t.http().post(`/api/v2/imports/${ended}/cancel`).set('Authorization', `Bearer ${org.key}`).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await app.t.app.get(ImportWorker).deleteExpired()).toBeGreaterThanOrEqual(1);
    const gone = await org.t.http().get(`/api/v2/imports/${ended}`).set('Authorization', `Bearer ${org.key}`);
    expect(gone.status).toBe(404);
    expect(await org.t.prisma.importRow.count({ where: { importId: ended } })).toBe(0);
    expect((await getImport(org, queued)).status).toBe('queued');
  });
});
