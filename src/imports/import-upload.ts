import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream';
import { TextDecoder } from 'node:util';
import zlib from 'node:zlib';
import type { Request } from 'express';
import { parse as parseCsv } from 'csv-parse';
import { EventLoopTurns } from '../common/event-loop-turns';
import { isStorableText } from '../common/storable-text';
import { isValidEmail, normalizeEmail } from '../contacts/email';
import { RequestErrorCode } from '../errors/error-codes';
import { RequestError, invalidRequest } from '../errors/request-error';
import type { CopyValue } from '../database/copy';
import { type FieldDefinitions, type RowRead, readCsvHeader, readCsvRecord, readNdjsonRow } from './rows/row-reading';

export type ImportFormat = 'ndjson' | 'csv';

/** The columns of import_rows an upload fills, in the order of `UploadedRow`. */
export const UPLOAD_COLUMNS = ['import_id', 'row', 'line', 'cells', 'problem', 'email', 'seen'] as const;

export interface UploadLimits {
  maxBytes: number;
  maxRows: number;
  /** A body that sends nothing for this long is 408 REQUEST_TIMEOUT. */
  idleTimeoutMs: number;
}

const tooLarge = (what: string) => new RequestError(RequestErrorCode.PAYLOAD_TOO_LARGE, what);

/**
 * The file's format from Content-Type (`application/x-ndjson` or `text/csv`, any letter case; a
 * charset other than utf-8 is refused), then a declared length over the limit (no encoding)
 * refused before anything is read. Throws the contract's 400 / 413.
 */
export function uploadFormat(req: Request, maxBytes: number): ImportFormat {
  const [type, ...parameters] = (req.headers['content-type'] ?? '').split(';');
  const media = type.trim().toLowerCase();
  const format = media === 'application/x-ndjson' ? 'ndjson' : media === 'text/csv' ? 'csv' : undefined;
  if (format === undefined) throw invalidRequest('Content-Type must be application/x-ndjson or text/csv');
  for (const parameter of parameters) {
    const [name, value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value.trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') throw invalidRequest(`charset must be utf-8, not ${JSON.stringify(charset)}`);
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  if ((encoding === 'identity' || encoding === '') && declared !== undefined && declared > maxBytes) {
    throw tooLarge(`The file exceeds ${maxBytes} bytes`);
  }
  return format;
}

/** The decoder of a Content-Encoding (section 1's gzip, deflate, br), or none for identity. */
function decoder(contentEncoding: string | undefined): Transform | undefined {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  switch (encoding) {
    case 'identity':
    case '':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      throw invalidRequest(`Unsupported Content-Encoding: ${encoding}`);
  }
}

/** Counts decoded bytes (413 past the limit) and ends a body that stalls (408). */
class Metered extends Transform {
  private bytes = 0;
  private timer: NodeJS.Timeout;

  constructor(
    private readonly maxBytes: number,
    private readonly idleTimeoutMs: number,
  ) {
    super();
    this.timer = this.arm();
  }

  private arm(): NodeJS.Timeout {
    return setTimeout(() => {
      this.destroy(new RequestError(RequestErrorCode.REQUEST_TIMEOUT, `The file stopped arriving for ${this.idleTimeoutMs} ms`));
    }, this.idleTimeoutMs);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    clearTimeout(this.timer);
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return callback(tooLarge(`The file exceeds ${this.maxBytes} decoded bytes`));
    this.timer = this.arm();
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    clearTimeout(this.timer);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.timer);
    callback(error);
  }
}

/**
 * A file's bytes (`Content-Encoding` undone), decoded and metered; a failed decoder errors the
 * stream. The upload's body, or a file the admin command line reads.
 */
export function fileStream(source: Readable, contentEncoding: string | undefined, limits: UploadLimits): Readable {
  const metered = new Metered(limits.maxBytes, limits.idleTimeoutMs);
  const decode = decoder(contentEncoding);
  const onError = (): void => undefined; // the error reaches the consumer through `metered`
  if (decode) {
    // Before pipeline's own listener, which would end `metered` with the decoder's error.
    decode.on('error', () => metered.destroy(invalidRequest('The body could not be decoded')));
    pipeline(source, decode, metered, onError);
  } else {
    pipeline(source, metered, onError);
  }
  return metered;
}

/** The request body as fileStream reads it; an aborted upload errors the stream. */
export function uploadStream(req: Request, limits: UploadLimits): Readable {
  const metered = fileStream(req, req.headers['content-encoding'], limits);
  req.on('aborted', () => metered.destroy(invalidRequest('The file was not sent completely')));
  return metered;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lossyUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** Text that PostgreSQL can store: the bytes decoded, or why not (the row is then INVALID_ROW). */
function decodeRow(bytes: Buffer): { text: string; problem: string | null } {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { text: lossyUtf8.decode(bytes).replace(/\0/g, '\uFFFD'), problem: 'row is not valid UTF-8' };
  }
  if (text.includes('\0')) return { text: text.replace(/\0/g, '\uFFFD'), problem: 'row holds a NUL character' };
  return { text, problem: null };
}

/** The non-blank lines of an NDJSON body, as bytes (LF or CRLF ends; a UTF-8 BOM dropped). */
async function* ndjsonLines(body: Readable): AsyncGenerator<Buffer> {
  let rest: Buffer = Buffer.alloc(0);
  let first = true;
  const lineOf = (bytes: Buffer): Buffer | undefined => {
    let line = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
    if (first) {
      first = false;
      if (line.length >= 3 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf) line = line.subarray(3);
    }
    // Blank: nothing but JSON whitespace.
    for (const byte of line) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return line;
    return undefined;
  };
  for await (const chunk of body as AsyncIterable<Buffer>) {
    let data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    let start = 0;
    for (let end = data.indexOf(0x0a, start); end !== -1; end = data.indexOf(0x0a, start)) {
      const line = lineOf(data.subarray(start, end));
      if (line) yield line;
      start = end + 1;
    }
    data = data.subarray(start);
    // A copy, so the chunk it came from is not kept alive by a small remainder.
    rest = Buffer.from(data);
  }
  const last = lineOf(rest);
  if (last) yield last;
}

/** The row's email column and whether it counts as seen for DUPLICATE_IN_REQUEST. */
function emailOf(read: RowRead): { email: string | null; seen: boolean } {
  if (read.kind === 'invalid') return { email: read.email !== null && isStorableText(read.email) ? read.email : null, seen: false };
  const raw = read.input.email;
  if (typeof raw !== 'string') return { email: null, seen: false };
  const email = normalizeEmail(raw);
  if (!isStorableText(email)) return { email: null, seen: false };
  return { email, seen: isValidEmail(email) };
}

export type UploadedRow = [string, number, string | null, string[] | null, string | null, string | null, boolean];

export interface UploadSource {
  /** The CSV header's names once read (null for NDJSON). */
  header: string[] | null;
  rows: AsyncGenerator<UploadedRow>;
  /** Rows yielded so far. */
  count(): number;
}

/**
 * The rows of the file as import_rows values, streamed: at most one chunk of the body and one row
 * are held. Throws (ending the COPY, so nothing is kept) on a request-level error: the CSV header
 * (400 naming the column), more than `maxRows` rows (413), the body's own errors.
 */
export function uploadRows(importId: string, format: ImportFormat, body: Readable, maxRows: number, fields: FieldDefinitions): UploadSource {
  let count = 0;
  // Rows are read in slices with turns for other requests between them: a body that arrives faster
  // than it is read is buffered, and reading it would otherwise hold the loop until the COPY pushes back.
  const turns = new EventLoopTurns();
  const source: UploadSource = { header: null, rows: undefined as unknown as AsyncGenerator<UploadedRow>, count: () => count };
  const next = (): number => {
    count++;
    if (count > maxRows) throw tooLarge(`The file has more than ${maxRows} rows`);
    return count;
  };
  async function* ndjson(): AsyncGenerator<UploadedRow> {
    for await (const bytes of ndjsonLines(body)) {
      await turns.turn();
      const row = next();
      const { text, problem } = decodeRow(bytes);
      const { email, seen } = problem === null ? emailOf(readNdjsonRow(text)) : { email: null, seen: false };
      yield [importId, row, text, null, problem, email, seen];
    }
  }
  async function* csv(): AsyncGenerator<UploadedRow> {
    // csv-parse decodes UTF-8 itself (bytes that are not UTF-8 become U+FFFD): a cell holding
    // U+FFFD is taken as bytes that were not UTF-8.
    // pipeline, not pipe: an error of the body, also one from before the rows are first read
    // (a body that cannot be decoded), ends the parser with it.
    // Records end in LF or CRLF, both in one file (not only the kind the first record ends in).
    const parser = parseCsv({ bom: true, relax_column_count: true, skip_empty_lines: true, record_delimiter: ['\r\n', '\n'] });
    pipeline(body, parser, () => undefined);
    let header: ReturnType<typeof readCsvHeader> | undefined;
    try {
      for await (const record of parser as AsyncIterable<string[]>) {
        const cells = record.map((cell) => cell.replace(/\0/g, '\uFFFD'));
        const problem = record.some((cell) => cell.includes('\uFFFD'))
          ? 'row is not valid UTF-8'
          : record.some((cell) => cell.includes('\0'))
            ? 'row holds a NUL character'
            : null;
        if (header === undefined) {
          if (problem !== null) throw invalidRequest('The CSV header is not valid UTF-8');
          header = readCsvHeader(cells, fields);
          source.header = cells;
          continue;
        }
        await turns.turn();
        const row = next();
        const { email, seen } = problem === null ? emailOf(readCsvRecord(cells, header)) : { email: null, seen: false };
        yield [importId, row, null, cells, problem, email, seen];
      }
    } catch (error) {
      if (error instanceof RequestError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw invalidRequest(`The CSV file could not be read: ${message}`);
    }
  }
  source.rows = format === 'ndjson' ? ndjson() : csv();
  return source;
}

/** `UploadedRow` as copyRows takes it. */
export const asCopyValues = (row: UploadedRow): readonly CopyValue[] => row;
