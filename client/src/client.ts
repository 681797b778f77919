import { randomUUID } from 'node:crypto';
import { ContactSyncError, type ContactSyncErrorCode } from './errors';
import { abortError, errorFromAnswer, type HttpAnswer, Transport, type TransportOptions, type TransportStats } from './transport';
import type {
  BatchResponse,
  BatchRow,
  ContactFailure,
  ContactInput,
  ContactResponse,
  ContactSuccess,
  FieldsResponse,
  ListsResponse,
  StoredResponse,
} from './types';

export type ClientOptions = TransportOptions;

export interface CallOptions {
  signal?: AbortSignal;
}

export interface UpsertOptions extends CallOptions {
  /** `?dryRun=true`: the answer the real call would give, nothing written. */
  dryRun?: boolean;
}

/** The answer of POST /api/v2/contacts: a success or a per-contact failure (request-level errors are thrown). */
export type UpsertResult = (ContactSuccess | ContactFailure) & {
  /** The HTTP status of the answer reported. */
  httpStatus: number;
  /** Set when a retry answered DUPLICATE_EMAIL/unchanged and an earlier attempt's stored answer is reported instead. */
  recovered?: true;
};

export const MAX_BATCH_ROWS = 50;
/** Bodies stay under the service's 1 MiB limit. */
export const MAX_BATCH_BYTES = 1_048_576 - 1;

export interface SyncOptions extends UpsertOptions {
  /** Batch requests in flight at once. Default 4. */
  concurrency?: number;
  /** Rows per batch, at most 50. Default 50. */
  chunkSize?: number;
  /** Largest body of one batch in bytes, under 1 MiB. Default 1,048,575. */
  maxChunkBytes?: number;
  /** Called after each batch is settled. */
  onProgress?: (progress: SyncProgress) => void;
}

export interface SyncProgress {
  /** Contacts with a result so far. */
  done: number;
  total: number;
  batchesDone: number;
  batchesTotal: number;
}

/** A row of the service's batch answer, `index` being the position in the caller's input. */
export type SyncRow = BatchRow & {
  /** The POST whose answer reported this row. */
  request_id: string;
  recovered?: true;
};

/** A row whose batch got no per-row answer: a request-level error (400, 413) or retries that ran out. */
export interface SyncRequestFailure {
  index: number;
  /** The input's email as given. */
  email: string | null;
  status: 'failed';
  code: ContactSyncErrorCode;
  message: string;
  request_id: string | null;
  requestFailed: true;
}

export interface SyncResult {
  /** One per input contact, in input order. */
  results: Array<SyncRow | SyncRequestFailure>;
  summary: { created: number; updated: number; unchanged: number; failed: number; recovered: number };
}

interface Chunk {
  start: number;
  items: ContactInput[];
}

/** Consecutive runs of at most `maxRows` contacts whose `{"contacts":[...]}` body stays within `maxBytes`. */
export function chunkContacts(contacts: readonly ContactInput[], maxRows = MAX_BATCH_ROWS, maxBytes = MAX_BATCH_BYTES): Chunk[] {
  const envelope = Buffer.byteLength('{"contacts":[]}');
  const chunks: Chunk[] = [];
  let current: Chunk | undefined;
  let bytes = 0;
  contacts.forEach((contact, index) => {
    const size = Buffer.byteLength(JSON.stringify(contact)) + 1; // and its comma
    if (!current || current.items.length >= maxRows || bytes + size > maxBytes) {
      // A contact too large on its own still goes alone: the service answers it (413).
      current = { start: index, items: [] };
      chunks.push(current);
      bytes = envelope;
    }
    current.items.push(contact);
    bytes += size;
  });
  return chunks;
}

const RECOVERABLE_STATUSES = new Set(['created', 'updated']);
/** What a retry answers for a row an earlier attempt wrote (seed interface section 8). */
const isRetryEcho = (row: { status: string; code?: string }) => row.status === 'unchanged' || row.code === 'DUPLICATE_EMAIL';

/**
 * A typed client of the Contact Sync API. Every call retries by the interface's rules (see
 * README); POSTs send a fresh X-Client-Request-Id per attempt so that a lost answer can be read
 * back instead of resending.
 */
export class ContactSyncClient {
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  /** Requests sent, 429s met, retries and lookups, since the client was made. */
  get stats(): Readonly<TransportStats> {
    return { ...this.transport.stats };
  }

  async upsertContact(contact: ContactInput, options: UpsertOptions = {}): Promise<UpsertResult> {
    const post = await this.postWithRecovery('/api/v2/contacts', contact, `cs-${randomUUID()}`, options);
    const { answer } = post;
    const body = answer.body as UpsertResult;
    const perContact = answer.status === 200 || answer.status === 201 || ((answer.status === 400 || answer.status === 409) && body?.status === 'failed');
    if (!perContact) throw errorFromAnswer(answer, post.attempts);
    if (post.attempts > 1 && isRetryEcho(body)) {
      for (const earlier of await post.earlierAnswers()) {
        const original = earlier.body as UpsertResult;
        if (RECOVERABLE_STATUSES.has(original.status)) return { ...original, httpStatus: earlier.status, recovered: true };
      }
    }
    return { ...body, httpStatus: answer.status };
  }

  /**
   * Any number of contacts, in batches of at most 50 (and under 1 MiB), `concurrency` at a time.
   * One result per contact, in input order. Rejects only when aborted or when the key is refused
   * (401); a batch the service refuses or cannot answer reports its rows as `requestFailed`.
   */
  async syncContacts(contacts: readonly ContactInput[], options: SyncOptions = {}): Promise<SyncResult> {
    const chunkSize = Math.min(MAX_BATCH_ROWS, Math.max(1, options.chunkSize ?? MAX_BATCH_ROWS));
    const chunks = chunkContacts(contacts, chunkSize, Math.min(MAX_BATCH_BYTES, options.maxChunkBytes ?? MAX_BATCH_BYTES));
    const results = new Array<SyncRow | SyncRequestFailure>(contacts.length);
    const callId = `cs-${randomUUID()}`;
    const progress: SyncProgress = { done: 0, total: contacts.length, batchesDone: 0, batchesTotal: chunks.length };
    // The first fatal error stops every worker; the others' batches in flight still settle.
    let fatal: Error | undefined;
    let next = 0;

    const worker = async () => {
      while (fatal === undefined && next < chunks.length) {
        const number = next++;
        const chunk = chunks[number];
        try {
          const rows = await this.syncChunk(chunk, `${callId}.b${number}`, options);
          rows.forEach((row, i) => (results[chunk.start + i] = row));
        } catch (error) {
          fatal ??= error as Error;
          return;
        }
        progress.done += chunk.items.length;
        progress.batchesDone++;
        options.onProgress?.({ ...progress });
      }
    };
    const concurrency = Math.max(1, Math.min(options.concurrency ?? 4, chunks.length));
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (options.signal?.aborted) throw abortError(options.signal);
    if (fatal !== undefined) throw fatal;

    const summary = { created: 0, updated: 0, unchanged: 0, failed: 0, recovered: 0 };
    for (const row of results) {
      summary[row.status]++;
      if ('recovered' in row && row.recovered) summary.recovered++;
    }
    return { results, summary };
  }

  /** One batch: its rows with input indexes, recovered where an earlier attempt wrote them. */
  private async syncChunk(chunk: Chunk, callId: string, options: SyncOptions): Promise<Array<SyncRow | SyncRequestFailure>> {
    const failAll = (code: ContactSyncErrorCode, message: string, requestId: string | null): SyncRequestFailure[] =>
      chunk.items.map((item, i) => ({
        index: chunk.start + i,
        email: typeof (item as { email?: unknown })?.email === 'string' ? item.email! : null,
        status: 'failed',
        code,
        message,
        request_id: requestId,
        requestFailed: true,
      }));

    let post: Awaited<ReturnType<ContactSyncClient['postWithRecovery']>>;
    try {
      post = await this.postWithRecovery('/api/v2/contacts/batch', { contacts: chunk.items }, callId, options);
    } catch (error) {
      // Retries ran out: this batch has no answer; the others go on.
      if (error instanceof ContactSyncError && error.code !== 'INVALID_API_KEY') return failAll(error.code, error.message, error.request_id);
      throw error;
    }
    const { answer } = post;
    if (answer.status !== 200) {
      const error = errorFromAnswer(answer, post.attempts);
      if (error.code === 'INVALID_API_KEY') throw error; // every other batch would be refused too
      return failAll(error.code, error.message, error.request_id);
    }
    const body = answer.body as BatchResponse;
    const earlier = post.attempts > 1 && body.results.some(isRetryEcho) ? await post.earlierAnswers() : [];
    return body.results.map((row) => {
      if (isRetryEcho(row)) {
        for (const stored of earlier) {
          const original = (stored.body as BatchResponse).results?.[row.index];
          if (original && RECOVERABLE_STATUSES.has(original.status)) {
            return { ...original, index: chunk.start + row.index, request_id: String(stored.requestId), recovered: true as const };
          }
        }
      }
      return { ...row, index: chunk.start + row.index, request_id: body.request_id };
    });
  }

  /**
   * POST with a fresh X-Client-Request-Id per attempt. After an ambiguous failure the attempt's
   * stored answer is asked for first; found, it is the answer and nothing is resent.
   * `earlierAnswers()` asks once more for every earlier attempt that was not a 429 (one of them may
   * have committed after it was first asked for), for rows that a retry answers DUPLICATE_EMAIL or
   * unchanged.
   */
  private async postWithRecovery(path: string, body: unknown, callId: string, options: UpsertOptions) {
    const idOf = (attempt: number) => `${callId}.a${attempt}`;
    const rateLimited = new Set<number>();
    const signal = options.signal;
    const asAnswer = (stored: StoredResponse): HttpAnswer => ({
      status: stored.original.status,
      body: stored.original.body,
      headers: new Headers(),
      requestId: stored.original.request_id,
    });
    const sent = await this.transport.send('POST', options.dryRun ? `${path}?dryRun=true` : path, {
      body,
      signal,
      headersFor: (attempt) => ({ 'X-Client-Request-Id': idOf(attempt) }),
      onRateLimited: (attempt) => rateLimited.add(attempt),
      // Dry runs are never stored: there is nothing to look up, and resending one is harmless.
      onAmbiguous: options.dryRun
        ? undefined
        : async (attempt) => {
            const stored = await this.transport.lookUp(idOf(attempt), signal);
            return stored ? asAnswer(stored) : null;
          },
    });
    let earlier: Promise<HttpAnswer[]> | undefined;
    const earlierAnswers = () =>
      (earlier ??= (async () => {
        if (options.dryRun) return [];
        const found: HttpAnswer[] = [];
        for (let attempt = 1; attempt < sent.attempts; attempt++) {
          if (rateLimited.has(attempt)) continue;
          const stored = await this.transport.lookUp(idOf(attempt), signal);
          if (stored) found.push(asAnswer(stored));
        }
        return found;
      })());
    return { answer: sent.answer, attempts: sent.attempts, earlierAnswers };
  }

  /** GET with retries; 2xx is the body, `notFoundCode` is null, anything else throws. */
  private async read<T>(path: string, options: CallOptions, notFoundCode?: string): Promise<T | null> {
    const { answer, attempts } = await this.transport.get(path, options.signal);
    if (answer.status === 200) return answer.body as T;
    const error = errorFromAnswer(answer, attempts);
    if (notFoundCode && error.code === notFoundCode) return null;
    throw error;
  }

  /** GET /api/v2/contacts/{email}; null when the organization has no such contact. */
  getContact(email: string, options: CallOptions = {}): Promise<ContactResponse | null> {
    return this.read(`/api/v2/contacts/${encodeURIComponent(email)}`, options, 'CONTACT_NOT_FOUND');
  }

  async listLists(options: CallOptions = {}): Promise<ListsResponse> {
    return (await this.read<ListsResponse>('/api/v2/lists', options))!;
  }

  async listFields(options: CallOptions = {}): Promise<FieldsResponse> {
    return (await this.read<FieldsResponse>('/api/v2/fields', options))!;
  }

  /** GET /api/v2/requests/{request_id}: what a POST answered (24 hours); null when unknown or expired. */
  getRequest(requestId: string, options: CallOptions = {}): Promise<StoredResponse | null> {
    return this.read(`/api/v2/requests/${encodeURIComponent(requestId)}`, options, 'REQUEST_NOT_FOUND');
  }

  /** GET /api/v2/requests?clientRequestId=: the most recent answer sent under that id; null when none. */
  findRequestByClientId(clientRequestId: string, options: CallOptions = {}): Promise<StoredResponse | null> {
    return this.read(`/api/v2/requests?clientRequestId=${encodeURIComponent(clientRequestId)}`, options, 'REQUEST_NOT_FOUND');
  }
}
