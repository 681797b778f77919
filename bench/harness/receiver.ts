import type { ReceiverCommand, ReceiverMessage, ReceiverOptions } from '../workers/hook-receiver.worker';
import { startWorker } from './worker';

export interface HookReceiver {
  url: string;
  /** webhook-id → when it first arrived (epoch ms). */
  arrivals: Map<string, number>;
  /** Requests received, repeats included. */
  requests(): number;
  close(): Promise<void>;
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
