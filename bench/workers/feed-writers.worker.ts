/**
 * The feed scenario's writers (its own thread, started by scenarios/feed.ts): `writers` connections
 * each making 50-contact batch creates one after the other until told to stop, then answering how
 * many were made. A thread of its own, with its own event loop and heap, as writers elsewhere would
 * be: on the bench's event loop the page reader's responses would wait behind the writers' requests
 * and the garbage collections of their bodies.
 */
import { parentPort, workerData } from 'node:worker_threads';

export interface FeedWritersOptions {
  port: number;
  key: string;
  listIds: string[];
  batch: number;
  writers: number;
  /** Prefix of the addresses written (unique to this run). */
  tag: string;
}

/** The bench's only message; the answer is `{ writes }` once every writer stopped. */
export type FeedWritersCommand = 'stop';
export interface FeedWritersDone {
  writes: number;
}

const port = parentPort;
if (!port) throw new Error('feed-writers.worker.ts runs as a worker thread');
const { port: servicePort, key, listIds, batch, writers, tag } = workerData as FeedWritersOptions;

let writing = true;
let writes = 0;
let sequence = 0;
const row = () => ({ email: `${tag}-${++sequence}@bench.example.com`, listIds, fields: { firstName: 'Ada', city: 'Oslo', plan: 'pro', seats: 3 }, overwrite: false });

const loops = Array.from({ length: writers }, async () => {
  while (writing) {
    const res = await fetch(`http://127.0.0.1:${servicePort}/api/v2/contacts/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ contacts: Array.from({ length: batch }, row) }),
    });
    await res.arrayBuffer();
    writes++;
  }
});

port.on('message', (command: FeedWritersCommand) => {
  if (command !== 'stop') return;
  writing = false;
  void Promise.all(loops).then(() => port.postMessage({ writes } satisfies FeedWritersDone));
});
