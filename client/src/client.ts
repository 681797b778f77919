import { randomUUID } from 'node:crypto';
import { ContactSyncError, type ContactSyncErrorCode } from './errors';
import { importContacts, type ImportContext, type ImportOptions, type ImportResultLine, type ImportSource, type ImportView } from './imports';
import { abortError, errorFromAnswer, type HttpAnswer, Transport, type TransportOptions, type TransportStats } from './transport';
import type {
  BatchResponse,
  BatchRow,
  ContactFailure,
  ContactInput,
  ContactResponse,
  ContactDeleted,
  ContactsPage,
  ContactSuccess,
  CreateFieldInput,
  CreateListInput,
  FieldResponse,
  FieldsResponse,
  ListResponse,
  ListRemoval,
  ListRemovalBatch,
  ListsResponse,
  StoredResponse,
  UpdateFieldInput,
  UpdateListInput,
  EraseResponse,
  EventsPage,
  EventType,
  ListedContact,
  Suppression,
  SuppressionInput,
  SuppressionsPage,
  SuppressResponse,
  UnsuppressResponse,
} from './types';

export type ClientOptions = TransportOptions;

export interface CallOptions {
  signal?: AbortSignal;
}

/** What `events()` reads (GET /api/v2/events, docs/events.md). */
export interface EventsOptions extends CallOptions {
  /** A `nextCursor` kept from an earlier page: start after it. Absent: from the oldest event kept. */
  after?: string;
  /** Only these types. */
  types?: readonly EventType[];
  /** Events per page, 1–1000 (the service's default: 100). */
  limit?: number;
  /**
   * false (default): stop at the first empty page (everything committed so far was read).
   * true: keep polling, `pollIntervalMs` apart, until `signal` aborts.
   */
  follow?: boolean;
  /** Wait between polls when following and a page came back empty (default 1000 ms). */
  pollIntervalMs?: number;
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

/** The filters of GET /api/v2/contacts (docs/api.md, "Listing contacts"), combined with AND. */
export interface ContactFilters {
  /** Members of this list (archived lists too). */
  listId?: string;
  suppressed?: boolean;
  /** `updatedAt` ≥ this instant. */
  updatedSince?: Date | string;
}

/** What `exportContacts()` answers: the snapshot's contacts, read as they arrive, and its feed cursor. */
export interface ContactExport {
  /**
   * The GET /api/v2/events cursor at the export's snapshot: `client.events({ after: feedCursor })`
   * yields every change committed after it, and none the export already holds.
   */
  feedCursor: string;
  /**
   * Every matching contact, by email, as GET /contacts/{email} shows it. Read once; a stream the
   * service could not finish throws ContactSyncError NETWORK_ERROR (export again: a partial export
   * is never taken for a whole one).
   */
  contacts: AsyncIterable<ListedContact>;
}

export interface ListContactsOptions extends ContactFilters, CallOptions {
  /** Contacts per page, 1–1000 (the service's default: 100). */
  limit?: number;
}
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
  /** What the imports need (client/src/imports.ts). */
  private readonly importContext: ImportContext;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
    this.importContext = { transport: this.transport, options };
  }

  /**
   * One import (POST /api/v2/imports) of a file path, bytes, a Readable, or contact inputs (sent
   * as NDJSON while they are read); polls it until it ends, telling `onProgress`, then yields every
   * result line in file order: `for await (const line of client.importContacts('contacts.csv', { onProgress }))`.
   * The generator's return value is the import's final state. An import that ends `failed` throws
   * ImportFailedError after its results.
   */
  importContacts(source: ImportSource, options: ImportOptions = {}): AsyncGenerator<ImportResultLine, ImportView> {
    return importContacts(this.importContext, source, options);
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

  /** A call whose final answer must be 200: its body, else the request-level error thrown. */
  private async call<T>(method: 'POST' | 'DELETE', path: string, body: unknown, options: CallOptions): Promise<T> {
    const { answer, attempts } = await this.transport.send(method, path, { body, signal: options.signal });
    if (answer.status === 200) return answer.body as T;
    throw errorFromAnswer(answer, attempts);
  }

  /**
   * POST /api/v2/contacts/{email}/erase (scope admin): the address leaves the database; a
   * suppression stays as a keyed hash. Repeatable, so retried like a read.
   */
  eraseContact(email: string, options: CallOptions = {}): Promise<EraseResponse> {
    return this.call('POST', `/api/v2/contacts/${encodeURIComponent(email)}/erase`, undefined, options);
  }

  /**
   * POST /api/v2/suppressions (scope contacts:write), 1–50 rows; per-row results (an address
   * already suppressed is `unchanged` with its kept reason). Retrying is safe: a row applied by a
   * lost attempt answers `unchanged`.
   */
  suppress(suppressions: readonly SuppressionInput[], options: CallOptions = {}): Promise<SuppressResponse> {
    return this.call('POST', '/api/v2/suppressions', { suppressions }, options);
  }

  /**
   * GET /api/v2/suppressions, every page in order: an async iterator over the pages (each with
   * its `suppressions`), following `nextCursor` until it is null.
   */
  async *listSuppressions(filter: { reason?: Suppression['reason']; limit?: number } = {}, options: CallOptions = {}): AsyncGenerator<SuppressionsPage> {
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams();
      if (filter.limit !== undefined) query.set('limit', String(filter.limit));
      if (filter.reason !== undefined) query.set('reason', filter.reason);
      if (cursor !== null) query.set('cursor', cursor);
      const text = query.toString();
      const page = (await this.read<SuppressionsPage>(`/api/v2/suppressions${text ? `?${text}` : ''}`, options))!;
      yield page;
      cursor = page.nextCursor;
    } while (cursor !== null);
  }

  /**
   * DELETE /api/v2/suppressions/{email} (scope admin). Throws SUPPRESSION_NOT_FOUND (also when a
   * lost attempt already lifted it) and SUPPRESSION_LOCKED (complained: only an operator lifts it).
   */
  unsuppress(email: string, options: CallOptions = {}): Promise<UnsuppressResponse> {
    return this.call('DELETE', `/api/v2/suppressions/${encodeURIComponent(email)}`, undefined, options);
  }

  /**
   * The change feed (GET /api/v2/events), a page at a time, following `nextCursor`: every committed
   * event exactly once, in commit order. Keep the last page's `nextCursor` (it is always a string)
   * and pass it as `after` to carry on later:
   * `for await (const page of client.events({ after: saved })) { handle(page.events); saved = page.nextCursor }`.
   * Ends at the first empty page, or keeps polling with `follow: true` until `signal` aborts (the
   * iterator then ends quietly). A cursor past retention throws CURSOR_EXPIRED (410).
   */
  async *events(options: EventsOptions = {}): AsyncGenerator<EventsPage, void, undefined> {
    let after = options.after;
    for (;;) {
      const query = new URLSearchParams();
      if (after !== undefined) query.set('after', after);
      if (options.limit !== undefined) query.set('limit', String(options.limit));
      if (options.types !== undefined) query.set('types', options.types.join(','));
      const text = query.toString();
      let page: EventsPage;
      try {
        page = (await this.read<EventsPage>(`/api/v2/events${text ? `?${text}` : ''}`, options))!;
      } catch (error) {
        if (options.follow && options.signal?.aborted) return;
        throw error;
      }
      after = page.nextCursor;
      if (page.events.length > 0) {
        yield page;
        continue;
      }
      if (!options.follow) {
        yield page; // the caller learns the cursor to come back with
        return;
      }
      if (!(await pause(options.pollIntervalMs ?? 1000, options.signal))) return;
    }
  }

  /** GET /api/v2/requests?clientRequestId=: the most recent answer sent under that id; null when none. */
  findRequestByClientId(clientRequestId: string, options: CallOptions = {}): Promise<StoredResponse | null> {
    return this.read(`/api/v2/requests?clientRequestId=${encodeURIComponent(clientRequestId)}`, options, 'REQUEST_NOT_FOUND');
  }

  /** A call whose 2xx answer is the body; anything else final is thrown. */
  private async write<T>(method: 'POST' | 'PATCH', path: string, body: unknown, options: CallOptions, stopWhenAmbiguous: boolean): Promise<T> {
    const { answer, attempts } = await this.transport.send(method, path, { body, signal: options.signal, stopWhenAmbiguous });
    if (answer.status === 200 || answer.status === 201) return answer.body as T;
    throw errorFromAnswer(answer, attempts);
  }

  /**
   * POST /api/v2/lists (an `admin` key). Not repeated after an answer that may hide a success
   * (500, 502, 504, a connection lost after sending): that is thrown, and listLists() tells.
   */
  createList(list: CreateListInput, options: CallOptions = {}): Promise<ListResponse> {
    return this.write('POST', '/api/v2/lists', list, options, true);
  }

  /** PATCH /api/v2/lists/{id}: rename, archive (`archived: true`) or unarchive. Safe to repeat, so retried. */
  updateList(id: string, change: UpdateListInput, options: CallOptions = {}): Promise<ListResponse> {
    return this.write('PATCH', `/api/v2/lists/${encodeURIComponent(id)}`, change, options, false);
  }

  /**
   * POST /api/v2/fields (an `admin` key); a key in use throws FIELD_KEY_TAKEN. Not repeated after
   * an answer that may hide a success (a retry would answer FIELD_KEY_TAKEN): listFields() tells.
   */
  createField(field: CreateFieldInput, options: CallOptions = {}): Promise<FieldResponse> {
    return this.write('POST', '/api/v2/fields', field, options, true);
  }

  /** PATCH /api/v2/fields/{key}: required, defaultValue, options (grow only). Safe to repeat, so retried. */
  updateField(key: string, change: UpdateFieldInput, options: CallOptions = {}): Promise<FieldResponse> {
    return this.write('PATCH', `/api/v2/fields/${encodeURIComponent(key)}`, change, options, false);
  }

  /**
   * Every contact, a page at a time (GET /api/v2/contacts, following `nextCursor` to the end):
   * `for await (const page of client.listContacts({ listId, limit: 1000 })) ...`. Visits every
   * contact that exists for the whole walk exactly once, in byte order of the email.
   */
  async *listContacts(options: ListContactsOptions = {}): AsyncGenerator<ContactsPage, void, undefined> {
    let cursor: string | null | undefined;
    do {
      const page: ContactsPage = await this.listContactsPage({ ...options, cursor });
      yield page;
      cursor = page.nextCursor;
    } while (cursor);
  }

  /**
   * GET /api/v2/contacts/export (NDJSON): every contact matching the filters in one database
   * snapshot, streamed, and the feed cursor of that snapshot:
   * `const { contacts, feedCursor } = await client.exportContacts(); for await (const c of contacts) ...`,
   * then `client.events({ after: feedCursor })` for what changed since. Opening it is retried as a
   * read (429 TOO_MANY_EXPORTS waits its Retry-After); the stream itself is not.
   */
  async exportContacts(options: ContactFilters & CallOptions = {}): Promise<ContactExport> {
    const query = filterQuery(options);
    query.set('format', 'ndjson');
    const { answer, attempts } = await this.transport.send('GET', `/api/v2/contacts/export?${query.toString()}`, { signal: options.signal, stream: true });
    if (answer.status !== 200) throw errorFromAnswer(answer, attempts);
    const feedCursor = answer.headers.get('x-feed-cursor');
    const body = answer.response?.body;
    if (!feedCursor || !body) {
      await answer.response?.body?.cancel();
      throw new ContactSyncError('The export answer has no X-Feed-Cursor or no body', 200, 'UNEXPECTED_RESPONSE', answer.requestId, attempts);
    }
    return { feedCursor, contacts: ndjsonContacts(body, answer.requestId) };
  }

  /** One page of GET /api/v2/contacts; `cursor` is the previous page's `nextCursor` (same filters). */
  async listContactsPage(options: ListContactsOptions & { cursor?: string | null } = {}): Promise<ContactsPage> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.cursor) query.set('cursor', options.cursor);
    for (const [name, value] of filterQuery(options)) query.set(name, value);
    const text = query.toString();
    const suffix = text ? `?${text}` : '';
    return (await this.read<ContactsPage>(`/api/v2/contacts${suffix}`, options))!;
  }

  /**
   * DELETE /api/v2/contacts/{email}; null when the organization has no such contact. Retried like a
   * read: after a lost answer, a retry that finds nothing (null) may follow an attempt that deleted it.
   */
  deleteContact(email: string, options: CallOptions = {}): Promise<ContactDeleted | null> {
    return this.remove(`/api/v2/contacts/${encodeURIComponent(email)}`, options, 'CONTACT_NOT_FOUND');
  }

  /**
   * DELETE /api/v2/lists/{listId}/contacts/{email}: `removed`, or `unchanged` when not a member.
   * Throws ContactSyncError for LIST_NOT_FOUND, CONTACT_NOT_FOUND and LAST_LIST_MEMBERSHIP.
   */
  async removeFromList(listId: string, email: string, options: CallOptions = {}): Promise<ListRemoval> {
    return (await this.remove<ListRemoval>(`/api/v2/lists/${encodeURIComponent(listId)}/contacts/${encodeURIComponent(email)}`, options))!;
  }

  /**
   * POST /api/v2/lists/{listId}/contacts/remove, up to 50 emails: one result per email, in order.
   * Safe to retry (a removal done twice is `unchanged` the second time), and retried as a read is.
   */
  async removeFromListBatch(listId: string, emails: readonly string[], options: CallOptions = {}): Promise<ListRemovalBatch> {
    const { answer, attempts } = await this.transport.send('POST', `/api/v2/lists/${encodeURIComponent(listId)}/contacts/remove`, {
      body: { emails },
      signal: options.signal,
    });
    if (answer.status === 200) return answer.body as ListRemovalBatch;
    throw errorFromAnswer(answer, attempts);
  }

  /** DELETE with retries; 2xx is the body, `notFoundCode` is null, anything else throws. */
  private async remove<T>(path: string, options: CallOptions, notFoundCode?: string): Promise<T | null> {
    const { answer, attempts } = await this.transport.send('DELETE', path, { signal: options.signal });
    if (answer.status === 200) return answer.body as T;
    const error = errorFromAnswer(answer, attempts);
    if (notFoundCode && error.code === notFoundCode) return null;
    throw error;
  }
}

/** Waits `ms`; false when `signal` aborted first (or already had). */
function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The listing's filters as query parameters (GET /contacts and its export). */
function filterQuery(filters: ContactFilters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.listId !== undefined) query.set('listId', filters.listId);
  if (filters.suppressed !== undefined) query.set('suppressed', String(filters.suppressed));
  if (filters.updatedSince !== undefined) {
    query.set('updatedSince', filters.updatedSince instanceof Date ? filters.updatedSince.toISOString() : filters.updatedSince);
  }
  return query;
}

/** The contacts of an NDJSON body, one per line, as they arrive; a body cut short throws NETWORK_ERROR. */
async function* ndjsonContacts(body: ReadableStream<Uint8Array>, requestId: string | null): AsyncGenerator<ListedContact, void, undefined> {
  const decoder = new TextDecoder();
  let pending = '';
  const reader = body.getReader();
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw new ContactSyncError('The export stream was cut before its end: export again', null, 'NETWORK_ERROR', requestId, 1, { cause: error });
      }
      if (chunk.done) break;
      pending += decoder.decode(chunk.value, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line !== '') yield JSON.parse(line) as ListedContact;
    }
    pending += decoder.decode();
    if (pending !== '') yield JSON.parse(pending) as ListedContact;
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
