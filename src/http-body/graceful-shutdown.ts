import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface Tracked {
  /** Sockets with no request being answered: idle keep-alive, bare TCP, half-sent headers. */
  sockets: Map<Socket, Set<ServerResponse>>;
  draining: boolean;
  /** Told when the drain starts: a body still arriving then gets a short grace, not its full timeout. */
  onDrain: Set<() => void>;
}

const tracked = new WeakMap<Server, Tracked>();
const trackedRequests = new WeakMap<IncomingMessage, Tracked>();

/**
 * Calls `listener` when SIGTERM's drain starts (at once if it already has); returns what stops
 * listening. Does nothing for a request of a server that is not tracked. The body reader listens:
 * an upload that has not arrived within DRAIN_BODY_GRACE_MS of the drain is answered 503 and
 * closed, so one slow uploader never holds a rolling deploy for SHUTDOWN_TIMEOUT_MS.
 * (A plain Set, not an AbortSignal's listeners: every body being read adds one, and an
 * EventTarget warns past 10 listeners and finds the one to remove by walking them all.)
 */
export function onDrainStart(req: IncomingMessage, listener: () => void): () => void {
  const state = trackedRequests.get(req);
  if (!state) return noop;
  if (state.draining) {
    listener();
    return noop;
  }
  state.onDrain.add(listener);
  return () => state.onDrain.delete(listener);
}

const noop = (): void => undefined;

/** How long a request body still arriving when the drain starts may take to finish arriving. */
export const DRAIN_BODY_GRACE_MS = 500;

/**
 * Follows every connection of the server and the requests being answered on it, so that a drain
 * can tell a connection carrying a request from one that carries none. Call before `listen`.
 */
export function trackConnections(server: Server): void {
  const state: Tracked = { sockets: new Map(), draining: false, onDrain: new Set() };
  tracked.set(server, state);
  server.on('connection', (socket: Socket) => {
    state.sockets.set(socket, new Set());
    socket.once('close', () => state.sockets.delete(socket));
    // Headers still coming when the drain starts: no request yet, the socket is closed then.
  });
  // Also emitted for requests re-emitted from 'checkContinue' / 'checkExpectation'.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    trackedRequests.set(req, state);
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
 * DRAIN_BODY_GRACE_MS for the rest, then 503 SERVICE_UNAVAILABLE (http-body/json-body.ts). Nest's `app.close()` runs the modules' destroy hooks
 * (PrismaService disconnects) BEFORE it closes the HTTP server, so main.ts drains with this first,
 * and only then calls `app.close()`.
 */
export async function drainHttpServer(server: Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const state = tracked.get(server);
  if (state) {
    state.draining = true;
    const listeners = [...state.onDrain];
    state.onDrain.clear();
    for (const listener of listeners) listener();
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
