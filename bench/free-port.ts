import net from 'node:net';

/**
 * A TCP port free on 127.0.0.1 right now, chosen by the kernel (listen on port 0). The bench drew
 * random ports from 20000–39999 before: that range overlaps Linux's ephemeral ports (32768–60999,
 * the local ends of outgoing connections) and services of the machine (RabbitMQ's 25672 here), and
 * 2 of 21 runs on 2026-11-25 failed to start on a port already in use.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
