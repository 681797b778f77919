import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
  /** Date.now() when the body was complete. */
  at: number;
}

/** What the receiver answers: a status (and headers; after delayMs), or 'hold' to keep the request open until close(). */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hold';

/** A local HTTP receiver for webhook tests: records every request, answers as `answer` decides (200 by default). */
export async function startReceiver(answer: (hook: ReceivedHook, index: number) => Answer = () => ({ status: 200 })) {
  const received: ReceivedHook[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const hook = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '', at: Date.now() };
      received.push(hook);
      const decided = answer(hook, received.length - 1);
      if (decided === 'hold') {
        held.push(res);
        return;
      }
      const send = () => {
        res.writeHead(decided.status, decided.headers ?? {});
        res.end('ok');
      };
      if (decided.delayMs) setTimeout(send, decided.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** The parsed bodies received so far. */
    events: () => received.map((hook) => JSON.parse(hook.body) as { id: string; type: string; data: Record<string, unknown> }),
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
