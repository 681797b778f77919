import type { Server } from 'node:http';

/**
 * Contract section 10, SIGTERM: stop accepting, finish in-flight requests, then close the database.
 * Nest's `app.close()` runs the modules' destroy hooks (PrismaService disconnects) BEFORE it closes
 * the HTTP server, so a request still being read or processed would fail with 500. main.ts
 * therefore drains the HTTP server with this first, and only then calls `app.close()`.
 */
export async function drainHttpServer(server: Server): Promise<void> {
  if (!server.listening) return;
  // server.close() closes the sockets idle at that moment only; a keep-alive socket whose request
  // finishes later would otherwise stay open until its keep-alive timeout.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  try {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  } finally {
    clearInterval(sweep);
  }
}
