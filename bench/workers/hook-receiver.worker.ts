/**
 * A webhook receiver (its own thread, started by harness/receiver.ts): a plain node:http server that
 * notes when each webhook-id first arrived, then answers 204 after `delayMs` (0: at once). Arrival
 * times are taken here, on this thread's event loop, and sent to the bench in batches every 20 ms:
 * on the bench's own event loop they would wait behind the load generator's work.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

export interface ReceiverOptions {
  /** How long each answer waits after the request's body has arrived. */
  delayMs: number;
}

/** Messages to the bench: the port once listening, arrivals (webhook-id, epoch ms pairs) and request counts, then `closed`. */
export type ReceiverMessage =
  | { kind: 'listening'; port: number }
  | { kind: 'arrivals'; arrivals: Array<[string, number]>; requests: number }
  | { kind: 'closed' };

/** The bench's only message: close the server (its connections too), flush, answer `closed`. */
export type ReceiverCommand = 'close';

const port = parentPort;
if (!port) throw new Error('hook-receiver.worker.ts runs as a worker thread');
const { delayMs } = workerData as ReceiverOptions;
const send = (message: ReceiverMessage) => port.postMessage(message);

const seen = new Set<string>();
let arrivals: Array<[string, number]> = [];
let requests = 0;
const flush = () => {
  if (arrivals.length === 0 && requests === 0) return;
  send({ kind: 'arrivals', arrivals, requests });
  arrivals = [];
  requests = 0;
};
const timer = setInterval(flush, 20);

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    requests++;
    const id = req.headers['webhook-id'];
    if (typeof id === 'string' && !seen.has(id)) {
      seen.add(id);
      arrivals.push([id, Date.now()]);
    }
    if (delayMs > 0) setTimeout(() => res.writeHead(204).end(), delayMs);
    else res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => send({ kind: 'listening', port: (server.address() as AddressInfo).port }));

port.on('message', (command: ReceiverCommand) => {
  if (command !== 'close') return;
  server.closeAllConnections();
  server.close(() => {
    clearInterval(timer);
    flush();
    send({ kind: 'closed' });
  });
});
