import pino, { type Logger } from 'pino';
import { maskSecrets } from './logging';

/**
 * The lines the process writes outside the app's logger: before the app exists (the database,
 * migrations), at a signal, and when it cannot start. They are in the one format of every other
 * line (pino's JSON: level, time, pid, hostname, context, msg) with the same masking, written
 * synchronously so that a line logged just before the process exits is not lost.
 */
export function processLogger(level: string, fd: 1 | 2 = 1): Logger {
  return pino({ level, hooks: { streamWrite: maskSecrets } }, pino.destination({ fd, sync: true })).child({ context: 'Main' });
}
