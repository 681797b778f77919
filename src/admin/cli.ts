/**
 * `npm run --silent admin -- <command>` (contract section 9). stdout carries exactly one JSON
 * object, so scripts can parse it; everything else (progress, warnings, errors) goes to stderr.
 * Exit codes: 0 done, 2 bad argument, 1 anything else (configuration, database).
 */
import { ConfigError, loadConfig } from '../config/app-config';
import { AdminArgumentError, executeAdminCommand, parseAdminCommand } from './admin.commands';

// Whatever a library logs must not corrupt the JSON on stdout.
console.log = console.info = console.debug = console.error;

async function main(argv: string[]): Promise<number> {
  const command = parseAdminCommand(argv); // bad arguments fail before any database work
  const config = loadConfig();
  // Loaded only now: a mistyped command is answered without loading Prisma and pg (half a second).
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { PrismaPg } = require('@prisma/adapter-pg') as typeof import('@prisma/adapter-pg');
  const { PrismaClient } = require('../generated/prisma/client') as typeof import('../generated/prisma/client');
  const { openAdminDatabase } = require('./admin-database') as typeof import('./admin-database');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const database = await openAdminDatabase(config, (message) => process.stderr.write(`${message}\n`));
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  try {
    const result = await executeAdminCommand(prisma, command);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await prisma.$disconnect();
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof AdminArgumentError || error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = error instanceof AdminArgumentError ? 2 : 1;
      return;
    }
    process.stderr.write(`admin: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
