import http from 'node:http';
import { createTestAppWithOrg, type TestApp } from '../utils/test-app';
import { portOf } from '../utils/net';

/**
 * A body refused for its size is answered while the client is still uploading it. Closing the
 * connection at once makes the kernel reset it (unread bytes in the receive buffer), and the
 * client then meets EPIPE / ECONNRESET instead of the 413. The server drains a bounded amount
 * for a bounded time before closing (docs/api.md "Request bodies"), so the client reads the 413.
 */
jest.setTimeout(180_000);

const MiB = 1_048_576;
const CHUNK = 64 * 1024;
const TRIES = 20;

interface Outcome {
  status: number;
  code: string | undefined;
  connection: string | undefined;
  error: string | undefined;
}

/** Node's http client writing `size` bytes in 64 KiB chunks, as fast as the socket takes them. */
function uploadWithHttp(port: number, key: string, size: number, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    let status = 0;
    let code: string | undefined;
    let connection: string | undefined;
    let error: string | undefined;
    let answered = false;
    let uploadDone = false;
    const settle = () => {
      if (answered && uploadDone) resolve({ status, code, connection, error });
    };
    const headers: Record<string, string> = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    if (chunked) headers['Transfer-Encoding'] = 'chunked';
    else headers['Content-Length'] = String(size);
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v2/contacts', headers, agent: false }, (res) => {
      status = res.statusCode ?? 0;
      connection = res.headers.connection;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        try {
          code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
        } catch {
          code = `unparsable: ${text.slice(0, 80)}`;
        }
        answered = true;
        settle();
      });
      res.on('error', (e: NodeJS.ErrnoException) => {
        error ??= e.code ?? e.message;
        answered = true;
        settle();
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
      answered = true;
      uploadDone = true;
      settle();
    });
    req.on('close', () => {
      uploadDone = true;
      answered ||= req.destroyed && status === 0;
      settle();
    });
    const chunk = Buffer.alloc(CHUNK, ' ');
    let sent = 0;
    const writeMore = () => {
      while (sent < size && !req.destroyed) {
        const n = Math.min(CHUNK, size - sent);
        sent += n;
        if (!req.write(n === CHUNK ? chunk : chunk.subarray(0, n))) {
          req.once('drain', writeMore);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    writeMore();
  });
}

/** `fetch` (undici) with the whole body given at once; it streams it out itself. */
async function uploadWithFetch(port: number, key: string, size: number): Promise<Outcome> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/contacts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: Buffer.alloc(size, ' '),
    });
    const body = (await res.json()) as { error?: { code?: string } };
    return { status: res.status, code: body.error?.code, connection: res.headers.get('connection') ?? undefined, error: undefined };
  } catch (e) {
    const cause = (e as { cause?: NodeJS.ErrnoException }).cause;
    return { status: 0, code: undefined, connection: undefined, error: cause?.code ?? (e as Error).message };
  }
}

const tally = (outcomes: Outcome[]) => {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const key = o.error ? `error ${o.error}` : `${o.status} ${o.code}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

describe('an oversized upload reads its 413 (lingering close)', () => {
  let t: TestApp;
  let apiKey: string;
  beforeAll(async () => ({ t, apiKey } = await createTestAppWithOrg()));
  afterAll(() => t.close());

  it.each([
    ['http, Content-Length 2 MiB', 2 * MiB, 'http-length'],
    ['http, Content-Length 8 MiB', 8 * MiB, 'http-length'],
    ['http, chunked 2 MiB (grows past the limit)', 2 * MiB, 'http-chunked'],
    ['fetch, 2 MiB', 2 * MiB, 'fetch'],
    ['fetch, 8 MiB', 8 * MiB, 'fetch'],
  ])(`%s: ${TRIES} of ${TRIES} tries read 413 PAYLOAD_TOO_LARGE with Connection: close`, async (_name, size, client) => {
    const port = portOf(t);
    const outcomes: Outcome[] = [];
    for (let i = 0; i < TRIES; i++) {
      outcomes.push(
        client === 'fetch' ? await uploadWithFetch(port, apiKey, size) : await uploadWithHttp(port, apiKey, size, client === 'http-chunked'),
      );
    }
    expect(tally(outcomes)).toEqual({ '413 PAYLOAD_TOO_LARGE': TRIES });
    for (const o of outcomes) expect(o.connection).toBe('close');
  });
});
