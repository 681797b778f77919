import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import {
  buildImportRequest,
  ContactSyncClient,
  ContactSyncError,
  contactsToNdjson,
  ImportFailedError,
  type ContactInput,
  type ImportResultLine,
  type ImportView,
  parseNdjsonLines,
} from '../../client/src';

async function bytesOf(body: unknown): Promise<Buffer> {
  if (body instanceof Uint8Array) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

const view = (status: ImportView['status'], processed = 0): ImportView => ({
  id: 'imp_0123456789abcdef0123456789abcdef',
  status,
  format: 'ndjson',
  overwrite: false,
  dryRun: false,
  rows: 3,
  processed,
  counts: { created: processed, updated: 0, unchanged: 0, failed: 0 },
  codes: {},
  clientRequestId: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: status === 'queued' ? null : '2026-01-01T00:00:01.000Z',
  finishedAt: ['completed', 'failed', 'cancelled'].includes(status) ? '2026-01-01T00:00:02.000Z' : null,
  error: status === 'failed' ? { code: 'INTERNAL', message: 'gave up' } : null,
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const RESULTS: ImportResultLine[] = [
  { row: 1, email: 'a@example.com', status: 'created', id: 'c1' },
  { row: 2, email: null, status: 'failed', code: 'INVALID_ROW', message: 'the row is not JSON' },
  { row: 3, email: 'é@example.com', status: 'failed', code: 'INVALID_EMAIL', message: 'email is not a valid email address' },
];
const resultsText = RESULTS.map((line) => JSON.stringify(line)).join('\n') + '\n';

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

/** A fake service: answers by method and path from `routes`, recording every request (bodies read in full). */
function fakeFetch(routes: (request: Sent, index: number) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const fetchImpl = (async (url: string, init: RequestInit & { duplex?: string } = {}) => {
    const request: Sent = {
      method: init.method ?? 'GET',
      url,
      headers: Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])),
      body: init.body === undefined || init.body === null ? null : await bytesOf(init.body),
    };
    if (request.body !== null && init.duplex !== 'half' && !(init.body instanceof Uint8Array)) throw new TypeError('a streamed body needs duplex: half');
    sent.push(request);
    return routes(request, sent.length - 1);
  }) as unknown as typeof fetch;
  return { sent, fetchImpl };
}

const client = (fetchImpl: typeof fetch) =>
  new ContactSyncClient({ baseUrl: 'http://service.test/', apiKey: 'k_test', fetch: fetchImpl, retry: { baseDelayMs: 1, maxAttempts: 3 }, random: () => 0 });

describe('buildImportRequest', () => {
  it('puts overwrite and dryRun in the query only when given', () => {
    expect(buildImportRequest(Buffer.from('')).path).toBe('/api/v2/imports');
    expect(buildImportRequest(Buffer.from(''), { overwrite: true, dryRun: false }).path).toBe('/api/v2/imports?overwrite=true&dryRun=false');
  });

  it('tells the format and gzip from a path, unless the options say', () => {
    const headers = (file: string, options = {}) => buildImportRequest(file, options).headers;
    expect(headers('/data/contacts.csv')).toEqual({ 'Content-Type': 'text/csv; charset=utf-8' });
    expect(headers('/data/contacts.CSV.gz')).toEqual({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Encoding': 'gzip' });
    expect(headers('/data/contacts.ndjson')).toEqual({ 'Content-Type': 'application/x-ndjson' });
    expect(headers('/data/contacts.txt', { format: 'csv', gzip: true })).toEqual({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Encoding': 'gzip' });
    expect(buildImportRequest('/data/contacts.csv').replayable).toBe(true);
  });

  it('sends contact inputs as NDJSON, once, and refuses csv for them', () => {
    const request = buildImportRequest([{ email: 'a@example.com' }]);
    expect(request).toMatchObject({ format: 'ndjson', replayable: false, headers: { 'Content-Type': 'application/x-ndjson' } });
    expect(() => buildImportRequest([{ email: 'a@example.com' }], { format: 'csv' })).toThrow(/NDJSON/);
    expect(buildImportRequest(Readable.from([Buffer.from('x')])).replayable).toBe(false);
  });

  it('compresses contact inputs with gzip: true', async () => {
    const request = buildImportRequest([{ email: 'a@example.com', listIds: ['L1'] }], { gzip: true });
    expect(request.headers['Content-Encoding']).toBe('gzip');
    expect(gunzipSync(await bytesOf(request.body())).toString()).toBe('{"email":"a@example.com","listIds":["L1"]}\n');
  });
});

describe('contactsToNdjson', () => {
  it('writes one JSON line per contact, in order, from an async iterable, in chunks of about 64 KiB', async () => {
    async function* contacts(): AsyncGenerator<ContactInput> {
      await Promise.resolve(); // an asynchronous source, as a database cursor would be
      for (let i = 0; i < 3000; i++) yield { email: `c${i}@example.com`, listIds: ['L1'], fields: { note: 'x'.repeat(40) }, overwrite: i % 2 === 0 };
    }
    const chunks = await collect(contactsToNdjson(contacts()));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.length).toBeGreaterThanOrEqual(64 * 1024);
      expect(chunk.length).toBeLessThan(65 * 1024);
    }
    const lines = Buffer.concat(chunks).toString().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3000);
    expect(JSON.parse(lines[2999])).toEqual({ email: 'c2999@example.com', listIds: ['L1'], fields: { note: 'x'.repeat(40) }, overwrite: false });
  });

  it('writes nothing for no contacts', async () => {
    expect(await collect(contactsToNdjson([]))).toEqual([]);
  });
});

describe('parseNdjsonLines', () => {
  it('parses lines split anywhere, even inside a character, skipping blank lines', async () => {
    const bytes = Buffer.from(`${resultsText}\n  \n`);
    for (const size of [1, 2, 3, 7, 64]) {
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
      expect(await collect(parseNdjsonLines(Readable.from(chunks)))).toEqual(RESULTS);
    }
  });

  it('reads a last line without a newline', async () => {
    expect(await collect(parseNdjsonLines(Readable.from([Buffer.from('{"a":1}\n{"a":2}')])))).toEqual([{ a: 1 }, { a: 2 }]);
  });
});

describe('ContactSyncClient.importContacts', () => {
  it('uploads contact inputs as streamed NDJSON, polls telling onProgress, then yields the result lines', async () => {
    const polls = [view('running', 1), view('completed', 3)];
    const { sent, fetchImpl } = fakeFetch((request) => {
      if (request.method === 'POST') return json(202, { request_id: 'r1', import: view('queued') }, { location: '/api/v2/imports/x' });
      if (request.url.endsWith('/results?status=failed')) return new Response(resultsText, { status: 200, headers: { 'content-type': 'application/x-ndjson' } });
      return json(200, { request_id: 'r2', import: polls.shift() });
    });
    async function* contacts(): AsyncGenerator<ContactInput> {
      await Promise.resolve(); // an asynchronous source, as a database cursor would be
      yield { email: 'a@example.com', listIds: ['L1'] };
      yield { email: 'b@example.com', listIds: ['L1'], fields: { firstName: 'B' }, overwrite: true };
    }
    const progress: string[] = [];
    const lines = await collect(
      client(fetchImpl).importContacts(contacts(), { overwrite: true, dryRun: true, resultStatus: 'failed', pollIntervalMs: 1, onProgress: (p) => progress.push(`${p.status}:${p.processed}`) }),
    );
    expect(lines).toEqual(RESULTS);
    expect(progress).toEqual(['queued:0', 'running:1', 'completed:3']);
    const [post, ...rest] = sent;
    expect(post.url).toBe('http://service.test/api/v2/imports?overwrite=true&dryRun=true');
    expect(post.headers).toMatchObject({ authorization: 'Bearer k_test', 'content-type': 'application/x-ndjson', 'x-client-request-id': expect.stringMatching(/^cs-[0-9a-f-]{36}\.a1$/) });
    expect(post.body!.toString()).toBe('{"email":"a@example.com","listIds":["L1"]}\n{"email":"b@example.com","listIds":["L1"],"fields":{"firstName":"B"},"overwrite":true}\n');
    expect(rest.map((r) => `${r.method} ${r.url.replace('http://service.test', '')}`)).toEqual([
      'GET /api/v2/imports/imp_0123456789abcdef0123456789abcdef',
      'GET /api/v2/imports/imp_0123456789abcdef0123456789abcdef',
      'GET /api/v2/imports/imp_0123456789abcdef0123456789abcdef/results?status=failed',
    ]);
    expect(rest[2].headers.accept).toBe('application/x-ndjson');
  });

  it('uploads a file by its path, and sends it again after a 503', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'client-import-'));
    const file = path.join(dir, 'contacts.csv');
    writeFileSync(file, 'email,listIds\na@example.com,L1\n');
    const { sent, fetchImpl } = fakeFetch((request, index) => {
      if (request.method === 'POST') return index === 0 ? json(503, { request_id: 'r', error: { code: 'SERVICE_UNAVAILABLE', message: 'busy' } }) : json(202, { request_id: 'r', import: view('completed', 3) });
      return new Response(resultsText, { status: 200 });
    });
    expect(await collect(client(fetchImpl).importContacts(file))).toEqual(RESULTS);
    const posts = sent.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    for (const post of posts) {
      expect(post.body!.toString()).toBe('email,listIds\na@example.com,L1\n');
      expect(post.headers['content-type']).toBe('text/csv; charset=utf-8');
    }
    expect(posts[1].headers['x-client-request-id']).toMatch(/\.a2$/);
  });

  it('after an answer that may hide an import, finds it by its client request id instead of uploading again', async () => {
    const { sent, fetchImpl } = fakeFetch((request) => {
      if (request.method === 'POST') return json(502, null);
      if (request.url.includes('?clientRequestId=')) return json(200, { request_id: 'r', imports: [view('completed', 3)], nextCursor: null });
      return new Response(resultsText, { status: 200 });
    });
    expect(await collect(client(fetchImpl).importContacts(Buffer.from('{"email":"a@example.com"}\n')))).toEqual(RESULTS);
    const post = sent[0];
    expect(sent.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(sent[1].url).toBe(`http://service.test/api/v2/imports?clientRequestId=${encodeURIComponent(post.headers['x-client-request-id'])}`);
  });

  it('does not send a stream read once again: the failure is thrown', async () => {
    const { sent, fetchImpl } = fakeFetch((request) => {
      if (request.method === 'POST') return json(503, { request_id: 'r', error: { code: 'SERVICE_UNAVAILABLE', message: 'busy' } });
      return json(404, { request_id: 'r', error: { code: 'REQUEST_NOT_FOUND', message: 'none' } });
    });
    await expect(collect(client(fetchImpl).importContacts([{ email: 'a@example.com' }]))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(sent.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('throws a request-level error of the upload as ContactSyncError', async () => {
    const { fetchImpl } = fakeFetch(() => json(400, { request_id: 'r', error: { code: 'INVALID_REQUEST', message: 'CSV header: column "nickname" names no field of the organization' } }));
    const error = await collect(client(fetchImpl).importContacts(Buffer.from('email,nickname\n'), { format: 'csv' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContactSyncError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_REQUEST', message: expect.stringMatching(/nickname/) });
  });

  it('resumes a results stream cut short without repeating a row', async () => {
    let resultsAsked = 0;
    const { fetchImpl } = fakeFetch((request) => {
      if (request.method === 'POST') return json(202, { request_id: 'r', import: view('completed', 3) });
      resultsAsked++;
      if (resultsAsked === 1) {
        const cut = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(Buffer.from(`${JSON.stringify(RESULTS[0])}\n${JSON.stringify(RESULTS[1])}\n{"row":3,`));
            controller.error(new TypeError('terminated'));
          },
        });
        return new Response(cut, { status: 200 });
      }
      return new Response(resultsText, { status: 200 });
    });
    expect(await collect(client(fetchImpl).importContacts(Buffer.from('x\n')))).toEqual(RESULTS);
    expect(resultsAsked).toBe(2);
  });

  it('an import that ends failed yields its results, then throws ImportFailedError', async () => {
    const { fetchImpl } = fakeFetch((request) => {
      if (request.method === 'POST') return json(202, { request_id: 'r', import: view('failed', 1) });
      return new Response(`${JSON.stringify(RESULTS[0])}\n`, { status: 200 });
    });
    const seen: ImportResultLine[] = [];
    const error = await (async () => {
      for await (const line of client(fetchImpl).importContacts(Buffer.from('x\n'))) seen.push(line);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([RESULTS[0]]);
    expect(error).toBeInstanceOf(ImportFailedError);
    expect((error as ImportFailedError).importView.status).toBe('failed');
  });
});
