import type { IncomingMessage, ServerResponse } from 'node:http';

/** Longest a refused upload is still read (and discarded) after its answer was written. */
export const LINGER_TIME_MS = 2_000;
/** Most bytes read (and discarded) after the answer; past it the connection is closed at once. */
export const LINGER_MAX_BYTES = 16 * 1_048_576;

/**
 * Lingering close, as nginx does it, for a request answered before its body was read (413, 401,
 * 429...) whose answer says `Connection: close`: the answer has been written whole (the client can
 * read it), and the response is ended, which makes Node close the connection, only once the rest
 * of the upload has arrived and been discarded, or after LINGER_TIME_MS or LINGER_MAX_BYTES.
 * Closing a socket whose receive buffer still holds unread bytes makes the kernel send RST, and a
 * client still uploading then meets EPIPE / ECONNRESET instead of reading the answer.
 */
export function endAfterUpload(req: IncomingMessage, res: ServerResponse): void {
  if (req.readableEnded || req.destroyed) {
    res.end();
    return;
  }
  let drained = 0;
  const end = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', end);
    req.off('error', end);
    req.off('close', end);
    if (!res.writableEnded) res.end();
  };
  const onData = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER_MAX_BYTES) end();
  };
  const timer = setTimeout(end, LINGER_TIME_MS);
  req.on('data', onData);
  req.once('end', end); // the whole body has arrived: nothing left that could cause a reset
  req.once('error', end);
  req.once('close', end);
  req.resume(); // the body reader paused the request when it refused it
}
