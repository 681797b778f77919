import { ContactSyncClient, type ContactInput } from '../../client/src';
import { Org, uniqueEmail } from '../contract/helpers';
import { createTestApp, type TestApp } from '../utils/test-app';

/* eslint-disable @typescript-eslint/no-explicit-any -- views and lines are checked by value */

/**
 * `importContacts(source, { onProgress })` against the real service (contract 17): an async
 * iterable of contact inputs is uploaded as NDJSON, the import is polled to its end and every
 * result line is yielded in file order; the generator returns the import as GET /imports/{id} shows it.
 */
describe('@contact-sync/client importContacts against the real service', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ IMPORT_CHUNK_ROWS: '2' });
  });
  afterAll(() => t?.close());

  const clientFor = (org: Org) =>
    new ContactSyncClient({ baseUrl: `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`, apiKey: org.key });

  /** Every yielded line, and the generator's return value. */
  async function drain(run: AsyncGenerator<any, any>): Promise<{ lines: any[]; final: any }> {
    const lines = [];
    for (;;) {
      const next = await run.next();
      if (next.done) return { lines, final: next.value };
      lines.push(next.value);
    }
  }

  async function* contactsOf(rows: ContactInput[]): AsyncGenerator<ContactInput> {
    for (const row of rows) {
      await Promise.resolve(); // read as it is needed, as from a cursor
      yield row;
    }
  }

  it('uploads an async iterable, tells onProgress until the end, yields one result per row in order and returns the final import', async () => {
    const { org, list } = await Org.withList(t);
    const emails = Array.from({ length: 5 }, () => uniqueEmail());
    const rows: ContactInput[] = [
      ...emails.map((email) => ({ email, listIds: [list] })),
      { email: 'not-an-email', listIds: [list] },
      { email: emails[0].toUpperCase(), listIds: [list] },
    ];
    const progress: any[] = [];
    const { lines, final } = await drain(clientFor(org).importContacts(contactsOf(rows), { pollIntervalMs: 20, onProgress: (view) => progress.push(view) }));

    expect(lines.map((line) => [line.row, line.email, line.status, line.code])).toEqual([
      ...emails.map((email, i) => [i + 1, email, 'created', undefined]),
      [6, 'not-an-email', 'failed', 'INVALID_EMAIL'],
      [7, emails[0], 'failed', 'DUPLICATE_IN_REQUEST'],
    ]);
    const shown = (await t.http().get(`/api/v2/imports/${final.id}`).set('Authorization', `Bearer ${org.key}`).expect(200)).body.import;
    expect(final).toEqual(shown);
    expect(final).toMatchObject({ status: 'completed', format: 'ndjson', rows: 7, processed: 7, counts: { created: 5, updated: 0, unchanged: 0, failed: 2 } });

    // Told after the upload (queued), after every poll, and last with the final state; progress never goes back.
    expect(progress[0]).toMatchObject({ id: final.id, status: 'queued', processed: 0 });
    expect(progress[progress.length - 1]).toEqual(final);
    const processed = progress.map((view) => view.processed);
    expect(processed).toEqual([...processed].sort((a, b) => a - b));
    const stored = await t.prisma.contact.findMany({ where: { organizationId: org.id }, select: { email: true } });
    expect(stored.map((c) => c.email).sort()).toEqual([...emails].sort());
  });

  it('gzip: true compresses the NDJSON on the way; resultStatus keeps the rows of that status', async () => {
    const { org, list } = await Org.withList(t);
    const email = uniqueEmail();
    const { lines, final } = await drain(
      clientFor(org).importContacts(contactsOf([{ email, listIds: [list] }, { email: 'nope', listIds: [list] }]), {
        gzip: true,
        resultStatus: 'failed',
        pollIntervalMs: 20,
      }),
    );
    expect(final).toMatchObject({ status: 'completed', rows: 2, counts: { created: 1, failed: 1 } });
    expect(lines).toEqual([{ row: 2, email: 'nope', status: 'failed', code: 'INVALID_EMAIL', message: expect.any(String) }]);
  });
});
