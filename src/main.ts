import { Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './config/app-config';
import { prepareDatabase } from './database/database-bootstrap';
import { PrismaService } from './database/prisma.service';
import { drainHttpServer } from './health/graceful-shutdown';
import { demoBanner, localBaseUrl, seedDemoData } from './demo/demo-seed';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = (message: string) => console.log(JSON.stringify({ level: 'info', msg: message }));
  const database = await prepareDatabase(config, log);
  const app = await createApp({ ...config, DATABASE_URL: database.url });
  // Embedded database only (never with DATABASE_URL): demo data on first start.
  const demo = database.embedded ? await seedDemoData(app.get(PrismaService)) : undefined;
  await app.listen(config.PORT, config.HOST);
  new Logger('Main').log(`Contact Sync listening on http://${config.HOST}:${config.PORT}`);
  if (demo) {
    const { port } = app.getHttpServer().address() as { port: number };
    process.stdout.write(demoBanner(demo, localBaseUrl(config.HOST, port)) + '\n');
  }

  // SIGTERM: stop accepting, let in-flight requests finish, close the database, exit 0.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received: draining`);
    const force = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    await drainHttpServer(app.getHttpServer());
    await app.close();
    await database.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  // A bad configuration is one clear line; anything else keeps its stack for the operator.
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
