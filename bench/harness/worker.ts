import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Starts `file`, a typed worker program of bench/workers, as a worker thread with `workerData`.
 * The bench runs under ts-node's require hook (`node -r ts-node/register/transpile-only`); the
 * worker gets the same node flags, so it loads the .ts file the same way.
 */
export function startWorker(file: string, workerData: unknown): Worker {
  return new Worker(path.join(__dirname, '..', 'workers', file), { workerData, execArgv: process.execArgv });
}
