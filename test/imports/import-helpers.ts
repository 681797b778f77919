import { gzipSync } from 'node:zlib';
import type { Org } from '../contract/helpers';
import { rawPostJson } from '../utils/net';
import { waitUntil } from '../utils/run-service';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked by value */

/** POSTs `file` to /api/v2/imports as `contentType` (gzip-encoded when asked). */
export function upload(org: Org, file: string | Buffer, options: { contentType?: string; query?: string; gzip?: boolean; headers?: Record<string, string> } = {}) {
  let bytes = typeof file === 'string' ? Buffer.from(file) : file;
  const headers: Record<string, string> = {
    Authorization: `Bearer ${org.key}`,
    'Content-Type': options.contentType ?? 'application/x-ndjson',
    ...options.headers,
  };
  if (options.gzip) {
    bytes = gzipSync(bytes);
    headers['Content-Encoding'] = 'gzip';
  }
  return rawPostJson(org.t, `/api/v2/imports${options.query ? `?${options.query}` : ''}`, bytes, headers);
}

export const ndjson = (rows: unknown[]) => rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n') + '\n';

export async function getImport(org: Org, id: string): Promise<any> {
  const res = await org.t.http().get(`/api/v2/imports/${id}`).set('Authorization', `Bearer ${org.key}`);
  return res.body.import;
}

/** Waits until the import ended; returns it. */
export async function finished(org: Org, id: string, timeoutMs = 20_000): Promise<any> {
  let last: any;
  await waitUntil(`import ${id} ended`, async () => {
    last = await getImport(org, id);
    return ['completed', 'cancelled', 'failed'].includes(last.status);
  }, timeoutMs);
  return last;
}

export async function results(org: Org, id: string, status?: string): Promise<any[]> {
  const res = await org.t
    .http()
    .get(`/api/v2/imports/${id}/results${status ? `?status=${status}` : ''}`)
    .set('Authorization', `Bearer ${org.key}`)
    .buffer(true)
    .parse((r, callback) => {
      let text = '';
      r.on('data', (chunk: Buffer) => (text += chunk.toString()));
      r.on('end', () => callback(null, text));
    });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
  return (res.body as string).split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
}
