import { Org, bootApp, uniqueEmail } from '../contract/helpers';
import { ConfigError, loadConfig } from '../../src/config/app-config';
import { finished, ndjson, upload } from './import-helpers';

/** IMPORT_CHUNK_PAUSE_MS: a running import waits that long after each chunk that leaves rows to do. */
describe('IMPORT_CHUNK_PAUSE_MS', () => {
  const PAUSE_MS = 1500;
  const app = bootApp({ IMPORT_CHUNK_ROWS: '10', IMPORT_CHUNK_PAUSE_MS: String(PAUSE_MS) });

  it('spaces the chunks of an import: 30 rows in chunks of 10 take at least two pauses', async () => {
    const { org, list } = await Org.withList(app.t);
    const rows = Array.from({ length: 30 }, () => ({ email: uniqueEmail(), listIds: [list] }));
    const { body } = await upload(org, ndjson(rows));
    expect(body.import.status).toBe('queued');
    const done = await finished(org, body.import.id, 30_000);
    expect(done).toMatchObject({ status: 'completed', processed: 30, counts: { created: 30, updated: 0, unchanged: 0, failed: 0 } });
    expect(Date.parse(done.finishedAt) - Date.parse(done.startedAt)).toBeGreaterThanOrEqual(2 * PAUSE_MS);
  });

  it('is refused at start when it reaches the lease (another instance would take the import over)', () => {
    const env = { DATABASE_URL: 'postgres://x@127.0.0.1:5432/x', IMPORT_LEASE_SECONDS: '2' };
    expect(() => loadConfig({ ...env, IMPORT_CHUNK_PAUSE_MS: '2000' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, IMPORT_CHUNK_PAUSE_MS: '2000' })).toThrow(/IMPORT_CHUNK_PAUSE_MS/);
    expect(loadConfig({ ...env, IMPORT_CHUNK_PAUSE_MS: '1999' }).IMPORT_CHUNK_PAUSE_MS).toBe(1999);
  });
});
