import net from 'node:net';

/**
 * A TCP port free on 127.0.0.1 right now, chosen by the kernel (listen on port 0). A port drawn at
 * random could fall in Linux's ephemeral range (the local ends of outgoing connections) or on a
 * service of the machine, and the start would fail on a port already in use.
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
