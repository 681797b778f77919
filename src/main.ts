// First: tracing must hook `require` before http, Nest, pg and ioredis load (off by default).
import './tracing/register';
import { Logger } from '@nestjs/common';
import type { Logger as PinoLogger } from 'pino';
import { createApp } from './app.factory';
import { loadConfig } from './config/app-config';
import { startupFailureLine } from './startup-failure';
import { processLogger } from './logging/process-log';
import { prepareDatabase } from './database/database-bootstrap';
import { Database } from './database/database';
import { openApiDocumentOf } from './docs/setup-docs';
import { drainHttpServer } from './http-body/graceful-shutdown';
import { demoBanner, localBaseUrl, seedDemoData } from './demo/demo-seed';
import { shutdownTracing } from './tracing/register';
import { WebhookWorker } from './webhooks/webhook-worker.service';
import { collectProcessMetrics } from './metrics/metrics.service';

async function main(): Promise<void> {
  const config = loadConfig();
  startupLogLevel = config.LOG_LEVEL;
  collectProcessMetrics();
  const logger: PinoLogger = processLogger(config.LOG_LEVEL);
  const log = (message: string) => logger.info(message);
  const database = await prepareDatabase(config, log);
  const app = await createApp({ ...config, DATABASE_URL: database.url, EMBEDDED_DATA_DIR: database.dataDir });
  openApiDocumentOf(app); // built on first use; here, before listening, so no request waits on it
  try {
    await app.listen(config.PORT, config.HOST);
  } catch (error) {
    await app.close().catch(() => undefined);
    await database.stop();
    throw error;
  }
  new Logger('Main').log(`Contact Sync listening on http://${config.HOST}:${config.PORT}`);
  // Demo data only once the port is bound, so its one-time key is always shown (embedded only).
  if (database.embedded) {
    const demo = await seedDemoData(app.get(Database));
    const { port } = app.getHttpServer().address() as { port: number };
    process.stdout.write(demoBanner(demo, localBaseUrl(config.HOST, port)) + '\n');
  }

  // SIGTERM: stop accepting, let in-flight requests finish, close the database, exit 0.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received: draining`);
    // The one bound on shutdown, the pool's end included (the Database waits for it without one of its
    // own): an operator sets SHUTDOWN_TIMEOUT_MS below the platform's kill, so that a stuck close exits 1.
    const force = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS);
    force.unref(); // a shutdown that completes exits at once, not at the bound
    // Webhook attempts in flight share the window with the requests being answered.
    await Promise.all([drainHttpServer(app.getHttpServer()), app.get(WebhookWorker).drain(Date.now() + config.SHUTDOWN_TIMEOUT_MS)]);
    await app.close();
    await database.stop();
    await shutdownTracing(2000); // the last spans, if tracing is on
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

let startupLogLevel = 'info';

main().catch((error: unknown) => {
  // Every known start-up failure is one line on stderr saying what to do, whatever LOG_LEVEL (even
  // silent); the error with its stack follows only at debug level.
  const detailed = startupLogLevel === 'debug' || startupLogLevel === 'trace';
  const failure = processLogger(detailed ? startupLogLevel : 'fatal', 2);
  failure.fatal(startupFailureLine(error, loadPort()));
  failure.debug({ err: error }, 'start-up failure: the error');
  process.exit(1);
});

function loadPort(): { port: string; host: string } {
  return { port: process.env.PORT || '3000', host: process.env.HOST || '0.0.0.0' };
}
