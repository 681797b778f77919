import { Client } from 'pg';

/** A start-up problem with the database, already phrased as one line: what is wrong, what to do. */
export class DatabaseStartError extends Error {}

/** Where DATABASE_URL points, without the password (safe to print). */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/**
 * Connects once to DATABASE_URL and turns the usual failures (nothing listening, unknown host,
 * missing database, refused credentials) into one line each, before Prisma prints a page of stack.
 */
export async function checkDatabaseReachable(url: string, timeoutMs = 10_000): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new DatabaseStartError(explainConnectError(error, url, timeoutMs), { cause: error });
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function explainConnectError(error: unknown, url: string, timeoutMs = 10_000): string {
  const where = describeDatabase(url);
  const { code, message } = error as { code?: string; message?: string };
  let host = where;
  let database = '';
  let user = '';
  try {
    const parsed = new URL(url);
    host = `${parsed.hostname}:${parsed.port || '5432'}`;
    database = decodeURIComponent(parsed.pathname.slice(1));
    user = decodeURIComponent(parsed.username);
  } catch {
    // keep the defaults
  }
  switch (code) {
    case 'ECONNREFUSED':
      return `database unreachable: nothing accepts connections at ${host}: start PostgreSQL there or fix DATABASE_URL`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `database unreachable: host of DATABASE_URL (${host}) not found: fix DATABASE_URL`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `database unreachable: no answer from ${host}: check the network or fix DATABASE_URL`;
    case '3D000':
      return `database missing: PostgreSQL at ${host} has no database "${database}": create it (CREATE DATABASE "${database}") or fix DATABASE_URL`;
    case '28P01':
    case '28000':
      return `database refused the login of user "${user}" at ${host} (${message ?? code}): fix the user or password in DATABASE_URL`;
    case '57P03':
      return `database at ${host} is starting up or shutting down: try again in a moment`;
    default:
      if (/timeout/i.test(message ?? '')) {
        return `database unreachable: no answer from ${host} within ${timeoutMs / 1000} s: check the network or fix DATABASE_URL`;
      }
      return `database at ${where} cannot be used: ${(message ?? String(error)).split('\n')[0]}`;
  }
}

/** The one line that matters in `prisma migrate deploy`'s output (its error, not its banner). */
export function migrationFailureLine(message: string): string {
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^(prisma migrate deploy failed:|Prisma schema loaded|Datasource|Loaded Prisma config|warn|Environment variables)/i.test(l));
  const at = lines.findIndex((l) => /^Error:|P\d{4}|ERROR:|error:/.test(l));
  if (at === -1) return (lines[0] ?? message).replace(/\s+/g, ' ');
  // "Error: P3005" alone says little: keep the sentence after it, and the database's own error.
  const rest = lines.slice(at + 2);
  const detail = rest.find((l) => /ERROR:/.test(l)) ?? rest.find((l) => /already exists|does not exist|Database error/.test(l));
  return [lines[at], lines[at + 1], detail]
    .filter((l, i, all) => l !== undefined && all.indexOf(l) === i)
    .join(' ')
    .replace(/\s+/g, ' ');
}
