import { ConfigError } from './config/app-config';
import { DatabaseStartError } from './database/start-errors';
import { EmbeddedPostgresError } from './database/postgres-process';

/**
 * The one line `npm start` prints when it cannot start: what is wrong and what to do. Errors
 * already phrased for an operator are printed as they are; the few others are recognised here.
 */
export function startupFailureLine(error: unknown, http: { port: string; host: string }): string {
  const prefix = 'Contact Sync cannot start: ';
  if (error instanceof ConfigError || error instanceof DatabaseStartError || error instanceof EmbeddedPostgresError) {
    return prefix + error.message;
  }
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code === 'EADDRINUSE') {
    return `${prefix}port ${http.port} is already in use on ${http.host} (another instance?): stop it or set PORT`;
  }
  if (code === 'EACCES' && /listen/.test(message ?? '')) {
    return `${prefix}not allowed to listen on port ${http.port}: use a port above 1023 (set PORT)`;
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return `${prefix}cannot listen on HOST=${http.host}: no such address on this machine: fix HOST`;
  }
  const first = (message ?? String(error)).split('\n')[0];
  return `${prefix}${first} (set LOG_LEVEL=debug for details)`;
}
