/**
 * `npm run --silent admin -- <command>` (docs/api.md#running-and-administration). stdout carries exactly one JSON
 * object, so scripts can parse it; everything else (progress, warnings, errors) goes to stderr.
 * Errors are one line, `<command>: <what is wrong>`.
 * Exit codes: 0 done, 2 bad argument, 1 anything else (configuration, database).
 */
import { ConfigError, loadConfig } from '../config/app-config';
import { AdminArgumentError, commandNameOf, executeAdminCommand, helpFor, parseAdminCommand } from './admin.commands';

// Whatever a library logs must not corrupt the JSON on stdout.
console.log = console.info = console.debug = console.error;

/** A failure that is not a bad argument (exit 1), already phrased for the operator. */
class AdminFailure extends Error {}

async function main(argv: string[]): Promise<number> {
  const help = helpFor(argv);
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const command = parseAdminCommand(argv); // bad arguments fail before any database work
  const config = loadConfig();
  // Loaded only now: a mistyped command is answered without loading Prisma and pg (half a second).
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { PrismaPg } = require('@prisma/adapter-pg') as typeof import('@prisma/adapter-pg');
  const { PrismaClient } = require('../generated/prisma/client') as typeof import('../generated/prisma/client');
  const { openAdminDatabase } = require('./admin-database') as typeof import('./admin-database');
  const { pendingMigrations } = require('../database/migrations') as typeof import('../database/migrations');
  const { applyMigrations } = require('../database/migrations') as typeof import('../database/migrations');
  const { migrationFailureLine } = require('../database/start-errors') as typeof import('../database/start-errors');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const database = await openAdminDatabase(config);
  try {
    const pending = await pendingMigrations(database.url);
    if (command.command === 'migrate' || (database.embedded && pending.length > 0)) {
      // The embedded database is always kept migrated, as the service does at start.
      if (pending.length > 0) {
        try {
          await applyMigrations(database.url);
        } catch (error) {
          throw new AdminFailure(`migrations failed: ${migrationFailureLine((error as Error).message)}`, { cause: error });
        }
      }
      if (command.command === 'migrate') {
        process.stdout.write(`${JSON.stringify({ applied: pending })}\n`);
        return 0;
      }
    } else if (pending.length > 0) {
      throw new AdminFailure(
        `the database is not migrated (${pending.length} migration${pending.length > 1 ? 's' : ''} pending): run "npm run --silent admin -- migrate" first`,
      );
    }
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
    try {
      const result = await executeAdminCommand(prisma, command);
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return 0;
    } finally {
      await prisma.$disconnect();
    }
  } finally {
    await database.close();
  }
}

const argv = process.argv.slice(2);
main(argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const name = commandNameOf(argv);
    const message = error instanceof Error ? error.message : String(error);
    const known = error instanceof AdminArgumentError || error instanceof ConfigError || error instanceof AdminFailure || isOperatorMessage(error);
    // One line, prefixed with the command (unless the message already starts with a command name).
    const line = (known ? message : `${message.split('\n')[0]} (set LOG_LEVEL=debug for details)`).replace(/\s*\n\s*/g, ' ');
    process.stderr.write(`${/^[a-z]+( [a-z]+)?: /.test(line) && line.startsWith(`${name}:`) ? line : `${name}: ${line}`}\n`);
    if (!known && (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace')) process.stderr.write(`${String((error as Error).stack)}\n`);
    process.exitCode = error instanceof AdminArgumentError ? 2 : 1;
  },
);

/** Errors from the database start-up checks are already one line for an operator. */
function isOperatorMessage(error: unknown): boolean {
  const name = (error as { constructor?: { name?: string } })?.constructor?.name;
  return name === 'DatabaseStartError' || name === 'EmbeddedPostgresError';
}
