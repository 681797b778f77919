import net from 'node:net';
import tls from 'node:tls';

/**
 * The HTTP/1.1 client of webhook attempts: one POST per connection at a time, keep-alive, to an
 * address already checked (webhook-address.ts). It does only what an attempt needs: write the
 * request in one piece, read the status line and headers, and read the body away by its framing
 * (Content-Length, chunked, or until the connection closes; at most MAX_BODY bytes) so that the
 * connection can carry the next attempt. Redirects are never followed (a 3xx is an answer that is
 * not 2xx). Why not node's http.request: per attempt it cost about 3 times the CPU of the socket
 * work itself (a ClientRequest, the agent's bookkeeping, an IncomingMessage stream, several
 * nextTicks), measured in docs/performance.md ("Webhook delivery, fourth pass"); the service's one
 * thread spends it beside the requests it answers.
 */

/** The receiver's body is not needed: more than this and the connection is dropped instead. */
const MAX_BODY = 64 * 1024;
/** Status line and headers, at most. */
const MAX_HEAD = 64 * 1024;
/** Where every plain TCP connection's reads land (see `open`); read from before the next read. */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

export interface HttpAnswer {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
}

/** Where an attempt connects: the scheme, the checked address, the port and the TLS name. */
export interface Target {
  protocol: string;
  address: string;
  port: number;
  servername: string | null;
}

/** A connection to one (scheme, address, port, TLS name), kept open between attempts. */
interface Connection {
  socket: net.Socket;
  key: string;
  /** The attempt using it now (null while idle). */
  onData: ((chunk: Buffer) => void) | null;
  onEnd: ((error: NodeJS.ErrnoException | null) => void) | null;
}

/**
 * Keep-alive connections per receiver (scheme, checked address, port, TLS name). Idle connections
 * do not keep the process alive, and one the receiver closes while idle is dropped at once.
 */
export class WebhookConnections {
  private readonly idle = new Map<string, Connection[]>();

  /**
   * `maxIdle`: connections kept idle per receiver (the worker's attempts in flight at most). `ca`:
   * the roots trusted instead of node's (tests only; certificates are always verified).
   */
  constructor(
    private readonly maxIdle: number,
    private readonly ca?: string,
  ) {}

  /** POSTs `request` (the whole request: head and body) and reads the answer; rejects on a network error. */
  send(target: Target, request: Buffer, timeoutMs: number): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => this.post(target, request, timeoutMs, (error, answer) => (error ? reject(error) : resolve(answer as HttpAnswer))));
  }

  /**
   * `send` with a callback, called exactly once (unless this throws: then never). The worker's
   * attempts use it: no promise per attempt is needed there (each cost an async-hooks init and a microtask: about 1 µs of
   * the service's CPU a delivery per promise; docs/performance.md, "Webhook delivery, seventh pass").
   */
  post(target: Target, request: Buffer, timeoutMs: number, callback: (error: Error | null, answer?: HttpAnswer) => void): void {
    const key = `${target.protocol}//${target.address}:${target.port}/${target.servername ?? ''}`;
    const connection = this.idle.get(key)?.pop() ?? this.open(key, target);
    const reader = new AnswerReader();
    let settled = false;
    const done = (error: Error | null, answer?: HttpAnswer, reusable = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      connection.onData = null;
      connection.onEnd = null;
      if (reusable) this.release(connection);
      else connection.socket.destroy();
      callback(error, answer);
    };
    const timer = setTimeout(() => done(new AttemptTimeout()), timeoutMs);
    connection.onData = (chunk) => {
      let state: ReturnType<AnswerReader['push']>;
      try {
        state = reader.push(chunk);
      } catch (error) {
        done(error as Error);
        return;
      }
      // The answer is known once its head is read; the connection is kept only when its body was read to the end.
      if (state === 'complete') done(null, reader.answer(), reader.reusable());
      else if (state === 'too-long') done(null, reader.answer(), false);
    };
    connection.onEnd = (error) => {
      // A body framed by the connection's end, or a head already read: the answer stands (node's http client did the same).
      if (reader.headRead()) done(null, reader.answer(), false);
      else done(error ?? httpError('connection reset', 'ECONNRESET'));
    };
    try {
      connection.socket.write(request);
    } catch (error) {
      done(error as Error); // called back once, as for any other failure
    }
  }

  destroy(): void {
    for (const connections of this.idle.values()) for (const c of connections) c.socket.destroy();
    this.idle.clear();
  }

  private open(key: string, target: Target): Connection {
    const socket =
      target.protocol === 'https:'
        ? tls.connect({ host: target.address, port: target.port, servername: target.servername ?? undefined, ALPNProtocols: ['http/1.1'], ca: this.ca })
        : net.connect({
            host: target.address,
            port: target.port,
            // Plain TCP reads into one shared buffer, handed to the attempt at once (it copies what
            // it keeps): no Buffer, stream push, 'data' event and nextTick per answer. TLS sockets
            // take no `onread`, and read as streams.
            onread: {
              buffer: READ_BUFFER,
              callback: (length) => {
                received(READ_BUFFER.subarray(0, length));
                return true;
              },
            },
          });
    socket.setNoDelay(true);
    // Never keeps the process alive: an attempt's own timer does while it waits (post), so the
    // socket is not ref'd and unref'd around every attempt.
    socket.unref();
    const connection: Connection = { socket, key, onData: null, onEnd: null };
    const received = (chunk: Buffer) => {
      if (connection.onData) connection.onData(chunk);
      else socket.destroy(); // bytes nobody asked for: the connection cannot be trusted with the next attempt
    };
    if (target.protocol === 'https:') socket.on('data', received);
    const ended = (error: NodeJS.ErrnoException | null) => {
      this.forget(connection);
      if (connection.onEnd) connection.onEnd(error);
    };
    socket.on('error', (error: NodeJS.ErrnoException) => ended(error));
    socket.on('end', () => ended(null));
    socket.on('close', () => ended(null));
    return connection;
  }

  private release(connection: Connection): void {
    const list = this.idle.get(connection.key) ?? [];
    if (list.length >= this.maxIdle || connection.socket.destroyed) {
      connection.socket.destroy();
      return;
    }
    list.push(connection);
    this.idle.set(connection.key, list);
  }

  private forget(connection: Connection): void {
    const list = this.idle.get(connection.key);
    const at = list?.indexOf(connection) ?? -1;
    if (list && at >= 0) list.splice(at, 1);
    if (!connection.socket.destroyed) connection.socket.destroy();
  }
}

export class AttemptTimeout extends Error {}

/** Reads one answer, pushed in chunks: interim 1xx answers skipped, then the head, then the body by its framing. */
class AnswerReader {
  private head = '';
  private status = 0;
  private headers: Record<string, string> = {};
  private headDone = false;
  private framing: 'none' | 'length' | 'chunked' | 'close' = 'none';
  private remaining = 0;
  private bodyBytes = 0;
  private keepAlive = true;
  private finished = false;
  /** Chunked framing: what is not parsed yet, the size of the chunk being read, and what is expected next. */
  private chunked = '';
  private chunkLeft = 0;
  private chunkState: 'size' | 'data' | 'trailers' = 'size';

  headRead(): boolean {
    return this.headDone;
  }

  answer(): HttpAnswer {
    return { status: this.status, headers: this.headers };
  }

  reusable(): boolean {
    return this.finished && this.keepAlive && this.framing !== 'close';
  }

  push(chunk: Buffer): 'more' | 'complete' | 'too-long' {
    let rest = chunk;
    while (!this.headDone) {
      const before = this.head.length;
      this.head += rest.toString('latin1');
      const end = this.head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (this.head.length > MAX_HEAD) throw httpError('answer head too long', 'HPE_HEADER_OVERFLOW');
        return 'more';
      }
      // What follows the head, in this chunk (latin1: a byte per character; the earlier chunks had no end of head).
      const after = rest.subarray(end + 4 - before);
      this.readHead(this.head.slice(0, end));
      this.head = '';
      rest = after;
      if (!this.headDone && rest.length === 0) return 'more';
    }
    return this.readBody(rest);
  }

  private readHead(text: string): void {
    const lines = text.split('\r\n');
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]);
    if (!statusLine) throw httpError('not an HTTP/1 answer', 'HPE_INVALID_CONSTANT');
    const status = Number(statusLine[2]);
    if (status >= 100 && status < 200) return; // interim (100 Continue, 103 Early Hints): the real answer follows
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i++) {
      const colon = lines[i].indexOf(':');
      if (colon <= 0) throw httpError('malformed header', 'HPE_INVALID_HEADER_TOKEN');
      headers[lines[i].slice(0, colon).trim().toLowerCase()] = lines[i].slice(colon + 1).trim();
    }
    this.status = status;
    this.headers = headers;
    this.headDone = true;
    const connection = (headers.connection ?? '').toLowerCase();
    this.keepAlive = statusLine[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    if (status === 204 || status === 304) {
      this.framing = 'none';
    } else if (/\bchunked\s*$/i.test(headers['transfer-encoding'] ?? '')) {
      this.framing = 'chunked';
    } else if (headers['transfer-encoding'] !== undefined) {
      this.framing = 'close';
    } else if (headers['content-length'] !== undefined) {
      if (!/^\d+$/.test(headers['content-length'])) throw httpError('bad content-length', 'HPE_INVALID_CONTENT_LENGTH');
      this.framing = 'length';
      this.remaining = Number(headers['content-length']);
    } else {
      this.framing = 'close';
    }
  }

  private readBody(chunk: Buffer): 'more' | 'complete' | 'too-long' {
    this.bodyBytes += chunk.length;
    if (this.framing === 'none') return this.end(chunk.length === 0);
    if (this.bodyBytes > MAX_BODY) return 'too-long';
    if (this.framing === 'length') {
      if (chunk.length > this.remaining) return this.end(false);
      this.remaining -= chunk.length;
      if (this.remaining === 0) return this.end(true);
    } else if (this.framing === 'chunked') {
      if (this.readChunks(chunk)) return this.end(this.chunked.length === 0);
    }
    return 'more';
  }

  /** True when the last chunk and the trailers were read (what follows them stays in `chunked`). */
  private readChunks(chunk: Buffer): boolean {
    this.chunked += chunk.toString('latin1');
    for (;;) {
      if (this.chunkState === 'data') {
        if (this.chunked.length < this.chunkLeft + 2) return false;
        if (this.chunked.slice(this.chunkLeft, this.chunkLeft + 2) !== '\r\n') throw httpError('bad chunk end', 'HPE_INVALID_CHUNK_SIZE');
        this.chunked = this.chunked.slice(this.chunkLeft + 2);
        this.chunkState = 'size';
        continue;
      }
      const eol = this.chunked.indexOf('\r\n');
      if (eol < 0) return false;
      const line = this.chunked.slice(0, eol);
      this.chunked = this.chunked.slice(eol + 2);
      if (this.chunkState === 'trailers') {
        if (line === '') return true;
        continue;
      }
      const size = /^([0-9a-fA-F]{1,8})[ \t]*(?:;.*)?$/.exec(line);
      if (!size) throw httpError('bad chunk size', 'HPE_INVALID_CHUNK_SIZE');
      this.chunkLeft = parseInt(size[1], 16);
      this.chunkState = this.chunkLeft === 0 ? 'trailers' : 'data';
    }
  }

  private end(clean: boolean): 'complete' {
    this.finished = true;
    if (!clean) this.keepAlive = false;
    return 'complete';
  }
}

function httpError(message: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}
