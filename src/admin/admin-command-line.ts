/**
 * The admin command line (docs/api.md#running-and-administration), run by `cli.ts` in its own
 * process: stdout carries exactly one JSON object, so scripts can parse it; everything else
 * (progress, warnings, errors) goes to stderr. Errors are one line, `<command>: <what is wrong>`.
 * Returns the exit code: 0 done, 2 bad argument, 1 anything else (configuration, database).
 * The tests that check what a command stores run it in-process through the same function
 * (test/admin/run-admin.ts); those that check the process itself spawn `cli.ts`.
 */
import { ConfigError, connectionTimeouts, loadConfig } from '../config/app-config';
import { AdminArgumentError, commandNameOf, helpFor, parseAdminCommand } from './admin-arguments';

/** A failure that is not a bad argument (exit 1), already phrased for the operator. */
class AdminFailure extends Error {}

/** Where a run writes (stdout, stderr) and the environment it reads its configuration from. */
export interface AdminIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** stderr is a terminal: `import` draws its progress bar there. */
  terminal?: boolean;
}

/** Runs one command and resolves with its exit code; never rejects. */
export async function runAdminCommandLine(argv: string[], io: AdminIo): Promise<number> {
  try {
    return await execute(argv, io);
  } catch (error) {
    const name = commandNameOf(argv);
    const message = error instanceof Error ? error.message : String(error);
    const known = error instanceof AdminArgumentError || error instanceof ConfigError || error instanceof AdminFailure || isOperatorMessage(error);
    // One line, prefixed with the command (unless the message already starts with a command name).
    const line = (known ? message : `${message.split('\n')[0]} (set LOG_LEVEL=debug for details)`).replace(/\s*\n\s*/g, ' ');
    io.err(`${/^[a-z]+( [a-z]+)?: /.test(line) && line.startsWith(`${name}:`) ? line : `${name}: ${line}`}\n`);
    if (!known && (io.env.LOG_LEVEL === 'debug' || io.env.LOG_LEVEL === 'trace')) io.err(`${String((error as Error).stack)}\n`);
    return error instanceof AdminArgumentError ? 2 : 1;
  }
}

async function execute(argv: string[], io: AdminIo): Promise<number> {
  const help = helpFor(argv);
  if (help !== undefined) {
    io.out(`${help}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const command = parseAdminCommand(argv); // bad arguments fail before any database work
  const config = loadConfig(io.env);
  // Loaded only now: help and a mistyped command are answered without loading NestJS, Prisma and pg.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { closeAdminClient, executeAdminCommand, openAdminClient } = require('./admin.commands') as typeof import('./admin.commands');
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
        io.out(`${JSON.stringify({ applied: pending })}\n`);
        return 0;
      }
    } else if (pending.length > 0) {
      throw new AdminFailure(
        `the database is not migrated (${pending.length} migration${pending.length > 1 ? 's' : ''} pending): run "npm run --silent admin -- migrate" first`,
      );
    }
    const prisma = openAdminClient(database.url, connectionTimeouts(config));
    try {
      let result: Record<string, unknown>;
      if (command.command === 'import') {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { runImportCommand } = require('./import.command') as typeof import('./import.command');
        const view = await runImportCommand(prisma, database.url, config, command, { err: io.err, progress: io.terminal === true });
        io.out(`${JSON.stringify(view)}\n`);
        if (view.status === 'completed') return 0;
        // Printed all the same; the exit code and one line on stderr tell a script it did not complete.
        io.err(`import: the import ended ${view.status}${view.error ? ` (${view.error.code}: ${view.error.message})` : ''}\n`);
        return 1;
      } else if (command.command === 'export') {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { runExportCommand } = require('./export.command') as typeof import('./export.command');
        result = await runExportCommand(prisma, database.url, config, command);
      } else {
        result = await executeAdminCommand(prisma, command);
      }
      io.out(`${JSON.stringify(result)}\n`);
      return 0;
    } finally {
      await closeAdminClient(prisma);
    }
  } finally {
    await database.close();
  }
}

/** Errors from the database start-up checks are already one line for an operator. */
function isOperatorMessage(error: unknown): boolean {
  const name = (error as { constructor?: { name?: string } })?.constructor?.name;
  return name === 'DatabaseStartError' || name === 'EmbeddedPostgresError';
}
