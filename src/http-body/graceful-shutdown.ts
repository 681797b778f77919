import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface Tracked {
  /** Sockets with no request being answered: idle keep-alive, bare TCP, half-sent headers. */
  sockets: Map<Socket, Set<ServerResponse>>;
  draining: boolean;
  /** Aborted when the drain starts: a body still arriving then gets a short grace, not its full timeout. */
  drain: AbortController;
}

const tracked = new WeakMap<Server, Tracked>();
const drainSignals = new WeakMap<IncomingMessage, AbortSignal>();

/**
 * Aborted when SIGTERM's drain starts (already aborted for a request arriving during it); undefined
 * for a server that is not tracked. The body reader listens to it: an upload that has not arrived
 * within DRAIN_BODY_GRACE_MS of the drain is answered 503 and closed, so one slow uploader never
 * holds a rolling deploy for SHUTDOWN_TIMEOUT_MS.
 */
export function drainSignalOf(req: IncomingMessage): AbortSignal | undefined {
  return drainSignals.get(req);
}

/** How long a request body still arriving when the drain starts may take to finish arriving. */
export const DRAIN_BODY_GRACE_MS = 500;

/**
 * Follows every connection of the server and the requests being answered on it, so that a drain
 * can tell a connection carrying a request from one that carries none. Call before `listen`.
 */
export function trackConnections(server: Server): void {
  const state: Tracked = { sockets: new Map(), draining: false, drain: new AbortController() };
  tracked.set(server, state);
  server.on('connection', (socket: Socket) => {
    state.sockets.set(socket, new Set());
    socket.once('close', () => state.sockets.delete(socket));
    // Headers still coming when the drain starts: no request yet, the socket is closed then.
  });
  // Also emitted for requests re-emitted from 'checkContinue' / 'checkExpectation'.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    drainSignals.set(req, state.drain.signal);
    const socket = req.socket;
    const active = state.sockets.get(socket);
    if (!active) return;
    active.add(res);
    if (state.draining) res.shouldKeepAlive = false; // a request arriving during the drain: answered, then closed
    res.once('close', () => {
      active.delete(res);
      if (state.draining && active.size === 0) socket.destroySoon();
    });
  });
}

/**
 * SIGTERM (docs/api.md#running-and-administration): stop accepting, finish in-flight requests, then close the database.
 * Connections carrying no request (idle keep-alive, a bare TCP connection, headers only half sent)
 * are closed at once; requests being answered finish, their answers carry `Connection: close`, and
 * their connection is closed right after. A request whose body is still arriving gets
 * DRAIN_BODY_GRACE_MS for the rest, then 503 SERVICE_UNAVAILABLE (JsonBodyInterceptor). Nest's `app.close()` runs the modules' destroy hooks
 * (PrismaService disconnects) BEFORE it closes the HTTP server, so main.ts drains with this first,
 * and only then calls `app.close()`.
 */
export async function drainHttpServer(server: Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const state = tracked.get(server);
  if (state) {
    state.draining = true;
    state.drain.abort();
    for (const [socket, active] of state.sockets) {
      if (active.size === 0) {
        socket.destroy();
        continue;
      }
      for (const res of active) if (!res.headersSent) res.shouldKeepAlive = false;
    }
  } else {
    server.closeIdleConnections();
  }
  await closed;
}
