import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { runAdminCommandLine } from '../../src/admin/admin-command-line';
import { createOrgWith } from '../utils/fixtures';
import { ROOM_FOR_LOAD, useTestApp } from '../utils/test-app';
import { jsonOf, runAdmin, runAdminInProcess, type AdminRun } from './run-admin';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked by value */

jest.setTimeout(90_000);

/**
 * `admin import --org <id> --file <path> [--format csv|ndjson]` (README "Administration"): the file
 * becomes an import as POST /api/v2/imports makes one, processed in the command's process, and the
 * command prints the import as GET /api/v2/imports/{id} shows it once it ended. The app here
 * processes no imports, so whatever is processed, the command processed.
 */
describe('admin import', () => {
  const app = useTestApp({ ...ROOM_FOR_LOAD, IMPORT_PROCESSING: 'false' });
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'import-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const env = () => ({ DATABASE_URL: app.t.database.url, LOG_LEVEL: 'silent' });
  const admin = (...args: string[]) => runAdminInProcess(args, env());
  const fileOf = async (name: string, content: string | Buffer) => {
    const file = path.join(dir, name);
    await writeFile(file, content);
    return file;
  };
  const get = (key: string, url: string) => app.t.http().get(url).set('Authorization', `Bearer ${key}`);
  const resultsOf = async (key: string, id: string) =>
    (await get(key, `/api/v2/imports/${id}/results`).buffer(true).parse((r, done) => {
      let text = '';
      r.on('data', (chunk: Buffer) => (text += chunk.toString()));
      r.on('end', () => done(null, text));
    })).body
      .split('\n')
      .filter((line: string) => line !== '')
      .map((line: string) => JSON.parse(line));

  it('imports an NDJSON file and prints the ended import exactly as GET /api/v2/imports/{id} shows it (a real process)', async () => {
    const org = await createOrgWith(app.t.prisma, { lists: ['A'] });
    const list = org.lists[0].id;
    const file = await fileOf(
      'contacts.ndjson',
      [{ email: 'A@Example.com', listIds: [list], fields: { firstName: 'Ada' } }, { email: 'b@example.com', listIds: [list] }, 'not json']
        .map((row) => (typeof row === 'string' ? row : JSON.stringify(row)))
        .join('\n'),
    );
    const run = await runAdmin(['import', '--org', org.id, '--file', file], env());
    const printed = jsonOf(run) as any;
    expect(run.stderr).toBe(''); // stderr is no terminal here: no progress bar
    const shown = (await get(org.apiKey, `/api/v2/imports/${printed.id}`).expect(200)).body.import;
    expect(printed).toEqual(shown);
    expect(printed).toMatchObject({
      status: 'completed', format: 'ndjson', rows: 3, processed: 3, counts: { created: 2, updated: 0, unchanged: 0, failed: 1 }, codes: { INVALID_ROW: 1 },
    });
    expect((await resultsOf(org.apiKey, printed.id)).map((line: any) => [line.row, line.email, line.status, line.code])).toEqual([
      [1, 'a@example.com', 'created', undefined],
      [2, 'b@example.com', 'created', undefined],
      [3, null, 'failed', 'INVALID_ROW'],
    ]);
    const stored = await app.t.prisma.contact.findMany({ where: { organizationId: org.id }, orderBy: { email: 'asc' }, select: { email: true } });
    expect(stored.map((c) => c.email)).toEqual(['a@example.com', 'b@example.com']);
    // The rows' events and import.finished, as an upload's import writes them.
    const events = await app.t.prisma.event.findMany({ where: { organizationId: org.id }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['contact.created', 'contact.created', 'import.finished']);
    expect(JSON.parse(events[2].body).data.import).toEqual(shown);
  });

  it('imports CSV: the format from .csv (and .csv.gz, gunzipped) or from --format, with custom field cells', async () => {
    const org = await createOrgWith(app.t.prisma, { lists: ['A'], fields: [{ key: 'score', type: 'number' }] });
    const list = org.lists[0].id;
    const csv = (emails: string[]) => `email,listIds,score\r\n${emails.map((email, i) => `${email},${list},${i + 1}`).join('\r\n')}\r\n`;
    const plain = jsonOf(await admin('import', '--org', org.id, '--file', await fileOf('a.csv', csv(['c1@example.com', 'c2@example.com'])))) as any;
    const gzipped = jsonOf(await admin('import', '--org', org.id, '--file', await fileOf('b.CSV.gz', gzipSync(csv(['c3@example.com']))))) as any;
    const named = jsonOf(await admin('import', '--org', org.id, '--file', await fileOf('c.txt', csv(['c4@example.com', 'x'])), '--format', 'csv')) as any;
    for (const [view, rows, failed] of [[plain, 2, 0], [gzipped, 1, 0], [named, 2, 1]] as const) {
      expect(view).toMatchObject({ status: 'completed', format: 'csv', rows, processed: rows, counts: { created: rows - failed, failed } });
      expect(view).toEqual((await get(org.apiKey, `/api/v2/imports/${view.id}`)).body.import);
    }
    expect(named.codes).toEqual({ INVALID_EMAIL: 1 });
    const contact = await get(org.apiKey, '/api/v2/contacts/c3%40example.com').expect(200);
    expect(contact.body.contact).toMatchObject({ email: 'c3@example.com', listIds: [list], fields: { score: 1 } });
  });

  it('draws a progress bar on stderr when it is a terminal, stdout keeping only the JSON', async () => {
    const org = await createOrgWith(app.t.prisma, { lists: ['A'] });
    const rows = Array.from({ length: 30 }, (_, i) => JSON.stringify({ email: `p${i}@example.com`, listIds: [org.lists[0].id] }));
    const file = await fileOf('progress.jsonl', rows.join('\n'));
    let stdout = '';
    let stderr = '';
    const code = await runAdminCommandLine(['import', '--org', org.id, '--file', file], {
      out: (text) => (stdout += text),
      err: (text) => (stderr += text),
      env: { ...process.env, ...env() },
      terminal: true,
    });
    const printed = jsonOf({ code, stdout, stderr }) as any;
    expect(printed).toMatchObject({ status: 'completed', processed: 30 });
    expect(stderr.startsWith('\r')).toBe(true);
    expect(stderr.endsWith('\n')).toBe(true);
    expect(stderr.split('\n')).toHaveLength(2); // one line, redrawn in place
    expect(stderr.endsWith(`completed [${'#'.repeat(30)}] 100% 30/30 rows, 0 failed\u001b[K\n`)).toBe(true);
  });

  it('refuses bad arguments and files the upload refuses: non-zero exit, one line on stderr, nothing on stdout, no import', async () => {
    const org = await createOrgWith(app.t.prisma, { lists: ['A'] });
    const ndjsonFile = await fileOf('ok.ndjson', '{"email":"z@example.com"}\n');
    const refusals: Array<[string[], number, string]> = [
      [['import', '--org', org.id], 2, 'import: missing option --file'],
      [['import', '--file', ndjsonFile], 2, 'import: missing option --org'],
      [['import', '--org', 'nope', '--file', ndjsonFile], 2, 'import: no organization with id "nope"'],
      [['import', '--org', org.id, '--file', ndjsonFile, '--format', 'xml'], 2, 'import: --format must be csv or ndjson, got "xml"'],
      [['import', '--org', org.id, '--file', ndjsonFile, '--dry-run'], 2, "import: Unknown option '--dry-run'"],
      [['import', '--org', org.id, '--file', await fileOf('contacts.txt', 'x')], 2, 'import: cannot tell the format of'],
      [['import', '--org', org.id, '--file', path.join(dir, 'absent.csv')], 2, 'import: --file'],
      [['import', '--org', org.id, '--file', await fileOf('header.csv', 'email,nickname\na@example.com,A\n')], 2, 'nickname'],
      [['import', '--org', org.id, '--file', await fileOf('empty.ndjson', '\n\n')], 2, 'import: The file has no row'],
      [['import', '--org', org.id, '--file', await fileOf('broken.csv.gz', 'not gzip')], 2, 'import: '],
    ];
    for (const [args, code, message] of refusals) {
      const run: AdminRun = await admin(...args);
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code, stdout: '' });
      expect(run.stderr.split('\n')).toEqual([expect.stringContaining(message), '']);
      expect(run.stderr.startsWith('import: ')).toBe(true);
    }
    expect(await app.t.prisma.import.count({ where: { organizationId: org.id } })).toBe(0);
  });
});
