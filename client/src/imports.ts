import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { ContactSyncError } from './errors';
import { abortError, errorFromAnswer, type HttpAnswer, retryAfterMs, sleep, type Transport, type TransportOptions } from './transport';
import type { ContactInput } from './types';

/**
 * Imports (docs/api.md, "Imports"): one upload of a whole file, applied by the service in the
 * background with the batch endpoint's rules, every row reported.
 */

export type ImportFormat = 'ndjson' | 'csv';
export type ImportStatus = 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';
export type ImportRowStatus = 'created' | 'updated' | 'unchanged' | 'failed';

/** `<import>` as GET /api/v2/imports/{id} shows it. */
export interface ImportView {
  id: string;
  status: ImportStatus;
  format: ImportFormat;
  overwrite: boolean;
  dryRun: boolean;
  rows: number;
  processed: number;
  counts: { created: number; updated: number; unchanged: number; failed: number };
  codes: Record<string, number>;
  clientRequestId: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: null | { code: string; message: string };
}

/** One line of GET /api/v2/imports/{id}/results: a row's result, `row` counting the file's rows from 1. */
export interface ImportResultLine {
  row: number;
  /** null when the row had no string email (or it was erased since). */
  email: string | null;
  status: ImportRowStatus;
  code?: string;
  message?: string;
  invalidListIds?: string[];
  changedFields?: string[];
  addedListIds?: string[];
  suppressionReason?: 'bounced' | 'complained' | 'unsubscribed';
  id?: string;
}

/**
 * What `importContacts` uploads:
 * - a string: the path of a file (sent again when an attempt must be repeated);
 * - a Uint8Array (a Buffer): the file's bytes;
 * - a Readable: the file's bytes, streamed (sent once: a failure after it started is thrown, after
 *   looking up whether the service took it);
 * - an iterable or async iterable of contact inputs: written as NDJSON while it is read, streamed
 *   (sent once, as a Readable).
 */
export type ImportSource = string | Uint8Array | Readable | Iterable<ContactInput> | AsyncIterable<ContactInput>;

export interface ImportOptions {
  /** Told of the import after the upload and after every poll, the last time with its final state. */
  onProgress?: (progress: ImportView) => void;
  /** The file's format. Default: `csv` for a path ending in `.csv` or `.csv.gz`, else `ndjson`; contact inputs are always NDJSON. */
  format?: ImportFormat;
  /**
   * Gzip: a path's, bytes' or Readable's content already is (sent with `Content-Encoding: gzip`);
   * contact inputs are compressed on the way. Default: true for a path ending in `.gz`, else false.
   */
  gzip?: boolean;
  /** `?overwrite=`: the value for rows that do not give their own (the service's default: false). */
  overwrite?: boolean;
  /** `?dryRun=true`: every row's result computed, nothing written. */
  dryRun?: boolean;
  /** Only the result lines of this status (`?status=`). */
  resultStatus?: ImportRowStatus;
  /** Wait between polls of GET /api/v2/imports/{id}. Default 1000 ms. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

/** The import ended `failed` (the service could not finish; never a row's fault). The rows processed before were yielded. */
export class ImportFailedError extends Error {
  override readonly name = 'ImportFailedError';
  constructor(readonly importView: ImportView) {
    super(`Import ${importView.id} failed: ${importView.error ? `${importView.error.code}: ${importView.error.message}` : 'no reason given'}`);
  }
}

/** The upload of one import, built from the source and the options (no network). */
export interface ImportRequest {
  /** Path and query of the POST. */
  path: string;
  headers: Record<string, string>;
  format: ImportFormat;
  /** A fresh body for each attempt. */
  body: () => Uint8Array | Readable;
  /** Whether a second attempt sends the same bytes (a path or bytes) or cannot (a stream read once). */
  replayable: boolean;
}

/** Bytes of NDJSON gathered before they are handed to the upload. */
const NDJSON_CHUNK_BYTES = 64 * 1024;

/** Contact inputs as NDJSON, one line each, in chunks of about 64 KiB, read as they are needed. */
export async function* contactsToNdjson(contacts: Iterable<ContactInput> | AsyncIterable<ContactInput>): AsyncGenerator<Buffer> {
  let lines: string[] = [];
  let bytes = 0;
  for await (const contact of contacts) {
    const line = `${JSON.stringify(contact)}\n`;
    lines.push(line);
    bytes += line.length;
    if (bytes >= NDJSON_CHUNK_BYTES) {
      yield Buffer.from(lines.join(''));
      lines = [];
      bytes = 0;
    }
  }
  if (lines.length > 0) yield Buffer.from(lines.join(''));
}

/** Each non-blank line of an NDJSON byte stream, parsed; chunks may split lines and characters anywhere. */
export async function* parseNdjsonLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  for await (const chunk of chunks) {
    pending += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() !== '') yield JSON.parse(line) as unknown;
    }
  }
  pending += decoder.decode();
  if (pending.trim() !== '') yield JSON.parse(pending) as unknown;
}

const isContacts = (source: ImportSource): source is Iterable<ContactInput> | AsyncIterable<ContactInput> =>
  typeof source === 'object' && source !== null && !(source instanceof Uint8Array) && !(source instanceof Readable) && (Symbol.iterator in source || Symbol.asyncIterator in source);

/** The POST of an import: path with its query, headers and body (no network; exported for tests). */
export function buildImportRequest(source: ImportSource, options: Omit<ImportOptions, 'onProgress' | 'signal'> = {}): ImportRequest {
  const query = new URLSearchParams();
  if (options.overwrite !== undefined) query.set('overwrite', String(options.overwrite));
  if (options.dryRun !== undefined) query.set('dryRun', String(options.dryRun));
  const text = query.toString();
  const path = `/api/v2/imports${text ? `?${text}` : ''}`;
  let format: ImportFormat;
  let gzip: boolean;
  let body: ImportRequest['body'];
  let replayable: boolean;
  if (typeof source === 'string') {
    gzip = options.gzip ?? /\.gz$/i.test(source);
    format = options.format ?? (/\.csv(\.gz)?$/i.test(source) ? 'csv' : 'ndjson');
    body = () => createReadStream(source);
    replayable = true;
  } else if (source instanceof Uint8Array) {
    gzip = options.gzip ?? false;
    format = options.format ?? 'ndjson';
    body = () => source;
    replayable = true;
  } else if (source instanceof Readable) {
    gzip = options.gzip ?? false;
    format = options.format ?? 'ndjson';
    body = () => source;
    replayable = false;
  } else if (isContacts(source)) {
    if (options.format === 'csv') throw new TypeError('contact inputs are uploaded as NDJSON: format "csv" needs a file or its bytes');
    format = 'ndjson';
    gzip = options.gzip ?? false;
    const ndjson = () => Readable.from(contactsToNdjson(source), { objectMode: false });
    body = gzip ? () => ndjson().pipe(createGzip()) : ndjson;
    replayable = false;
  } else {
    throw new TypeError('importContacts: the source must be a file path, bytes, a Readable or an iterable of contact inputs');
  }
  return { path, format, body, replayable, headers: contentHeaders(format, gzip) };
}

function contentHeaders(format: ImportFormat, gzip: boolean): Record<string, string> {
  return {
    'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
  };
}

/** What importContacts needs of its client. */
export interface ImportContext {
  transport: Transport;
  options: TransportOptions;
}

const AMBIGUOUS = new Set([500, 502, 504]);
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);
const FINISHED: ReadonlySet<ImportStatus> = new Set(['completed', 'cancelled', 'failed']);

const headersOf = (options: TransportOptions, extra: Record<string, string>) => ({ Authorization: `Bearer ${options.apiKey}`, ...extra });

async function answerOf(res: Response): Promise<HttpAnswer> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null; // not JSON (a proxy's page): judged by its status
  }
  return { status: res.status, headers: res.headers, body, requestId: res.headers.get('x-request-id') };
}

/** The import created under this X-Client-Request-Id, or null. */
async function importUnder(ctx: ImportContext, clientRequestId: string, signal?: AbortSignal): Promise<ImportView | null> {
  try {
    const { answer } = await ctx.transport.get(`/api/v2/imports?clientRequestId=${encodeURIComponent(clientRequestId)}`, signal);
    const imports = answer.status === 200 ? (answer.body as { imports?: ImportView[] }).imports : undefined;
    return imports?.[0] ?? null;
  } catch (error) {
    if (error instanceof ContactSyncError) return null;
    throw error;
  }
}

/**
 * POST /api/v2/imports with the interface's retry rules where the body can be sent again: 429 waits
 * Retry-After, 503 and connections refused before sending back off; after an answer that may hide
 * an import (500, 502, 504, a connection lost after sending) the import is looked up by the
 * attempt's X-Client-Request-Id before anything is sent again. A stream read once is not sent again.
 */
async function upload(ctx: ImportContext, request: ImportRequest, signal?: AbortSignal): Promise<ImportView> {
  const fetchImpl = ctx.options.fetch ?? fetch;
  const baseUrl = ctx.options.baseUrl.replace(/\/+$/, '');
  const maxAttempts = ctx.options.retry?.maxAttempts ?? 6;
  const baseDelayMs = ctx.options.retry?.baseDelayMs ?? 250;
  const callId = `cs-${randomUUID()}`;
  for (let attempt = 1; ; attempt++) {
    const clientRequestId = `${callId}.a${attempt}`;
    let answer: HttpAnswer | null = null;
    let failure: { error: unknown; sent: boolean } | null = null;
    try {
      ctx.transport.stats.requests++;
      // A streamed body needs `duplex: 'half'` (Node's fetch); Readable is an async iterable of bytes, which it takes.
      const init = {
        method: 'POST',
        headers: headersOf(ctx.options, { Accept: 'application/json', 'X-Client-Request-Id': clientRequestId, ...request.headers }),
        body: request.body(),
        duplex: 'half',
        signal,
      };
      const res = await fetchImpl(baseUrl + request.path, init as unknown as RequestInit);
      answer = await answerOf(res);
    } catch (error) {
      if (signal?.aborted) throw abortError(signal);
      const code = (error as { cause?: { code?: unknown } })?.cause?.code;
      failure = { error, sent: !NOT_SENT_CODES.has(typeof code === 'string' ? code : '') };
    }
    if (answer?.status === 202) return (answer.body as { import: ImportView }).import;
    const ambiguous = failure ? failure.sent : AMBIGUOUS.has(answer!.status);
    if (ambiguous) {
      const found = await importUnder(ctx, clientRequestId, signal);
      if (found) return found;
    }
    const retriable = answer ? answer.status === 429 || answer.status === 503 || AMBIGUOUS.has(answer.status) : true;
    if (!request.replayable || !retriable || attempt >= maxAttempts) {
      if (answer) throw errorFromAnswer(answer, attempt);
      throw new ContactSyncError(`The import upload failed: ${String((failure!.error as Error)?.message ?? failure!.error)}`, null, 'NETWORK_ERROR', null, attempt, {
        cause: failure!.error,
      });
    }
    ctx.transport.stats.retried++;
    const wait = answer?.status === 429 ? retryAfterMs(answer.headers) : Math.floor(Math.random() * baseDelayMs * 2 ** (attempt - 1));
    await sleep(wait, signal);
  }
}

/** GET /api/v2/imports/{id} with the interface's retries. */
async function readImport(ctx: ImportContext, id: string, signal?: AbortSignal): Promise<ImportView> {
  const { answer, attempts } = await ctx.transport.get(`/api/v2/imports/${encodeURIComponent(id)}`, signal);
  if (answer.status !== 200) throw errorFromAnswer(answer, attempts);
  return (answer.body as { import: ImportView }).import;
}

/**
 * GET /api/v2/imports/{id}/results, line by line. A stream cut short is asked for again (up to the
 * retry attempts) and the rows already yielded are skipped: rows come in file order.
 */
export async function* importResults(ctx: ImportContext, id: string, options: { status?: ImportRowStatus; signal?: AbortSignal } = {}): AsyncGenerator<ImportResultLine> {
  const fetchImpl = ctx.options.fetch ?? fetch;
  const baseUrl = ctx.options.baseUrl.replace(/\/+$/, '');
  const maxAttempts = ctx.options.retry?.maxAttempts ?? 6;
  const path = `/api/v2/imports/${encodeURIComponent(id)}/results${options.status ? `?status=${options.status}` : ''}`;
  let lastRow = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      ctx.transport.stats.requests++;
      const res = await fetchImpl(baseUrl + path, { headers: headersOf(ctx.options, { Accept: 'application/x-ndjson' }), signal: options.signal });
      if (res.status !== 200 || !res.body) {
        const answer = await answerOf(res);
        if (answer.status < 500 && answer.status !== 429) throw errorFromAnswer(answer, attempt);
        if (attempt >= maxAttempts) throw errorFromAnswer(answer, attempt);
        await sleep(answer.status === 429 ? retryAfterMs(answer.headers) : 250 * attempt, options.signal);
        continue;
      }
      for await (const line of parseNdjsonLines(res.body)) {
        const result = line as ImportResultLine;
        if (result.row <= lastRow) continue;
        lastRow = result.row;
        yield result;
      }
      return;
    } catch (error) {
      if (options.signal?.aborted) throw abortError(options.signal);
      if (error instanceof ContactSyncError || error instanceof SyntaxError || attempt >= maxAttempts) throw error;
      ctx.transport.stats.retried++;
      await sleep(250 * attempt, options.signal);
    }
  }
}

/**
 * Uploads `source` as one import, polls it until it ends (telling `onProgress`), then yields every
 * result line in file order. An import that ends `failed` throws ImportFailedError after its
 * results; `cancelled` ends the results quietly (the rows applied before the cancel have one).
 */
export async function* importContacts(ctx: ImportContext, source: ImportSource, options: ImportOptions = {}): AsyncGenerator<ImportResultLine, ImportView> {
  const request = buildImportRequest(source, options);
  let view = await upload(ctx, request, options.signal);
  options.onProgress?.(view);
  while (!FINISHED.has(view.status)) {
    await sleep(options.pollIntervalMs ?? 1000, options.signal);
    view = await readImport(ctx, view.id, options.signal);
    options.onProgress?.(view);
  }
  yield* importResults(ctx, view.id, { status: options.resultStatus, signal: options.signal });
  if (view.status === 'failed') throw new ImportFailedError(view);
  return view;
}
