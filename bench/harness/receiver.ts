import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ReceiverCommand, ReceiverMessage, ReceiverOptions } from '../workers/hook-receiver.worker';

export interface HookReceiver {
  url: string;
  /** webhook-id → when it first arrived (epoch ms). */
  arrivals: Map<string, number>;
  /** Requests received, repeats included. */
  requests(): number;
  close(): Promise<void>;
}

/** Starts `file` (a .ts worker program of bench/workers) as a worker thread with `workerData`. */
export function startWorker(file: string, workerData: unknown): Worker {
  // The bench runs under ts-node's require hook; the worker inherits it through execArgv.
  return new Worker(path.join(__dirname, '..', 'workers', file), { workerData, execArgv: process.execArgv });
}

/** A webhook receiver in a worker thread (workers/hook-receiver.worker.ts) answering after `delayMs`. */
export async function startHookReceiver(options: ReceiverOptions = { delayMs: 0 }): Promise<HookReceiver> {
  const arrivals = new Map<string, number>();
  let requests = 0;
  const worker = startWorker('hook-receiver.worker.ts', options);
  let closed: () => void = () => undefined;
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message: ReceiverMessage) => {
      if (message.kind === 'listening') resolve(message.port);
      else if (message.kind === 'arrivals') {
        for (const [id, at] of message.arrivals) if (!arrivals.has(id)) arrivals.set(id, at);
        requests += message.requests;
      } else closed();
    });
  });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    requests: () => requests,
    close: async () => {
      await new Promise<void>((resolve) => {
        closed = resolve;
        worker.postMessage('close' satisfies ReceiverCommand);
      });
      await worker.terminate();
    },
  };
}
