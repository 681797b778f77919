import { readdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { freePort, isListening } from '../utils/net';
import { startBuiltService, waitUntil, type ServiceProcess } from '../utils/run-service';
import { ensureBuilt } from '../utils/built';
import { createEmptyDatabase, type TestDatabase } from '../utils/test-database';

/**
 * The process's own lines (docs/reliability.md, logs): every line of `node dist/main.js` is JSON in
 * the one format (pino's: level, time, pid, hostname, msg), the start-up and signal lines too; the
 * migration line only when migrations were applied, naming how many.
 */
jest.setTimeout(180_000);

const MIGRATIONS = readdirSync(path.join(PROJECT_ROOT, 'prisma', 'migrations'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).length;

interface Line {
  level: number;
  time: number;
  pid: number;
  hostname: string;
  msg: string;
}

/** Starts on `url` with MIGRATE_ON_START=true, stops with SIGTERM; every line printed, parsed. */
async function startAndStop(url: string): Promise<Line[]> {
  const port = await freePort();
  const service: ServiceProcess = startBuiltService({ DATABASE_URL: url, PORT: String(port), MIGRATE_ON_START: 'true' });
  try {
    await waitUntil('the service listens', () => service.output().includes('listening') && isListening(port), 120_000);
    service.child.kill('SIGTERM');
    expect(await service.exit).toEqual({ code: 0, signal: null });
  } finally {
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
  }
  expect(service.stderr()).toBe('');
  const lines = service.stdout().split('\n').filter((line) => line !== '');
  return lines.map((text) => {
    const line = JSON.parse(text) as Line; // a line that is not JSON fails here
    expect({ text, line }).toEqual({ text, line: expect.objectContaining({ level: expect.any(Number), time: expect.any(Number), pid: service.child.pid, hostname: expect.any(String), msg: expect.any(String) }) });
    return line;
  });
}

describe('the lines of node dist/main.js', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    ensureBuilt();
    database = await createEmptyDatabase('lines');
  });
  afterAll(() => database?.drop());

  it('a first start applies the migrations and says how many; a second start has no migration line; SIGTERM is a JSON line', async () => {
    expect(MIGRATIONS).toBeGreaterThan(1);
    const first = await startAndStop(database.url);
    expect(first.filter((line) => /migration/i.test(line.msg)).map((line) => line.msg)).toEqual([`Applied ${MIGRATIONS} pending migrations`]);
    expect(first.filter((line) => line.msg === 'SIGTERM received: draining').map((line) => line.level)).toEqual([30]);

    const second = await startAndStop(database.url);
    expect(second.filter((line) => /migration/i.test(line.msg))).toEqual([]);
    expect(second.map((line) => line.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/listening on/), 'SIGTERM received: draining']));
  });
});
