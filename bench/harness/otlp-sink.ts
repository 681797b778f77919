import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OTLP/HTTP trace receiver in the bench's own process, for the services under test to export
 * to: it reads and acknowledges every export and counts them (`stats`), so export costs the
 * service what it would against a collector, and nothing is kept.
 */
export async function startOtlpSink(): Promise<{ server: http.Server; port: number; stats: { exports: number; bytes: number } }> {
  const stats = { exports: 0, bytes: 0 };
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (stats.bytes += chunk.length));
    req.on('end', () => {
      stats.exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, stats };
}
