import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** Longest a refused upload is still read (and discarded) after its answer was sent. */
export const LINGER_TIME_MS = 2_000;
/** Most bytes read (and discarded) after the answer; past it the connection is closed at once. */
export const LINGER_MAX_BYTES = 16 * 1_048_576;

type ClosableSocket = Socket & { destroySoon(): void };

/**
 * Lingering close, as nginx does it: a request answered before its body was read (413, 401,
 * 429...) is closed only after the answer went out (FIN) AND the rest of the upload was drained
 * (discarded), for at most LINGER_TIME_MS and LINGER_MAX_BYTES. Closing a socket whose receive
 * buffer still holds unread bytes makes the kernel send RST, and a client still uploading then
 * meets EPIPE / ECONNRESET instead of reading the answer (docs/api.md, "Request bodies").
 *
 * Node's HTTP server ends a `Connection: close` exchange with `socket.destroySoon()` once the
 * answer is written; this replaces that one call on this one socket.
 */
export function lingerBeforeClose(req: IncomingMessage): void {
  const socket = req.socket as ClosableSocket;
  if (socket.destroyed) return;
  let lingering = false;
  socket.destroySoon = function lingeringClose(this: ClosableSocket): void {
    // Also called by the SIGTERM drain once the answer is done (http-body/graceful-shutdown.ts).
    if (lingering) return;
    lingering = true;
    if (this.writable) this.end(); // the answer, then FIN: the client sees the end of the answer
    let drained = 0;
    const close = () => {
      clearTimeout(timer);
      req.off('data', onData);
      // Never cut off the answer itself: destroy once it has been handed to the kernel.
      if (this.writableFinished) this.destroy();
      else this.once('finish', () => this.destroy());
    };
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > LINGER_MAX_BYTES) close();
    };
    const timer = setTimeout(close, LINGER_TIME_MS);
    this.once('close', () => clearTimeout(timer));
    req.on('data', onData);
    req.once('end', close); // the whole body has arrived: nothing left that could cause a reset
    req.once('error', close);
    if (req.readableEnded) close();
    else req.resume(); // the body reader paused the request when it refused it
  };
}
