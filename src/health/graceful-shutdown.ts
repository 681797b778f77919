import type { INestApplication } from '@nestjs/common';
import { NestApplication } from '@nestjs/core';
import type { Server } from 'node:http';

/**
 * Contract section 10, SIGTERM: stop accepting, finish in-flight requests, then close the database.
 * Nest's own `app.close()` runs the modules' destroy hooks (PrismaService disconnects) BEFORE it
 * closes the HTTP server, so a request still being read or processed would fail with 500. This
 * makes `app.close()` drain the HTTP server first: no new connections, every request already
 * received is answered, idle keep-alive sockets are closed as soon as they fall idle, and only
 * then do the destroy hooks run.
 */
export function drainHttpBeforeClose(app: INestApplication): void {
  // Nest's own close, taken from the class: `app.close` read through Nest's proxy would resolve
  // to the replacement below at call time and recurse.
  const close = () => NestApplication.prototype.close.call(app);
  let draining: Promise<void> | undefined;
  const closeAfterDrain = async (): Promise<void> => {
    draining ??= drain(app.getHttpServer() as Server);
    await draining;
    await close();
  };
  // NestFactory returns the app behind a Proxy whose `set` trap ignores assignments;
  // defineProperty reaches the application object itself.
  Object.defineProperty(app, 'close', { value: closeAfterDrain, configurable: true, writable: true });
}

async function drain(server: Server): Promise<void> {
  if (!server.listening) return;
  // server.close() closes the sockets idle at that moment only; a socket whose request finishes
  // later would otherwise stay open until its keep-alive timeout.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  try {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  } finally {
    clearInterval(sweep);
  }
}
