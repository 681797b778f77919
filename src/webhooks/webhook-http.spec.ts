import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AttemptTimeout, WebhookConnections } from './webhook-http';

/**
 * A receiver that answers each request with the given raw bytes (split into the given pieces, to
 * cross chunk boundaries), and counts the connections it was opened.
 */
async function rawReceiver(answers: (index: number) => string[] | 'close' | 'hold') {
  let connections = 0;
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        const answer = answers(requests++);
        if (answer === 'close') socket.destroy();
        else if (answer !== 'hold') {
          // Pieces written apart may arrive apart: the client must cope either way. '<end>' ends the connection.
          for (const piece of answer) {
            if (piece === '<end>') socket.end();
            else socket.write(piece);
          }
        }
      }
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    target: { protocol: 'http:', address: '127.0.0.1', port, servername: null },
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const request = Buffer.from('POST /hook HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}');

describe('WebhookConnections (the attempts HTTP/1.1 client)', () => {
  it('reads Content-Length and chunked bodies across pieces, skips 1xx, and reuses one connection for all', async () => {
    const answers = [
      ['HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhel', 'lo'],
      ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\ntransfer-encoding: chunked\r\n\r\n3\r', '\nabc\r\n0\r\n', 'x-trailer: 1\r\n\r\n'],
      ['HTTP/1.1 204 No Content\r\n\r\n'],
      ['HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:1/\r\ncontent-length: 0\r\n\r\n'],
    ];
    const receiver = await rawReceiver((i) => answers[i]);
    const connections = new WebhookConnections(4);
    try {
      expect(await connections.send(receiver.target, request, 2000)).toMatchObject({ status: 200 });
      expect(await connections.send(receiver.target, request, 2000)).toEqual({ status: 503, headers: { 'retry-after': '7', 'transfer-encoding': 'chunked' } });
      expect(await connections.send(receiver.target, request, 2000)).toMatchObject({ status: 204 });
      expect(await connections.send(receiver.target, request, 2000)).toMatchObject({ status: 302 });
      expect(receiver.connections()).toBe(1);
    } finally {
      connections.destroy();
      await receiver.close();
    }
  });

  it('takes a body framed by the connection end, then opens a new connection for the next attempt', async () => {
    const receiver = await rawReceiver((i) => (i === 0 ? ['HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nbye', '<end>'] : ['HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n']));
    const connections = new WebhookConnections(4);
    try {
      expect(await connections.send(receiver.target, request, 2000)).toMatchObject({ status: 200 });
      expect(await connections.send(receiver.target, request, 2000)).toMatchObject({ status: 201 });
      expect(receiver.connections()).toBe(2);
    } finally {
      connections.destroy();
      await receiver.close();
    }
  });

  it('gives up after the timeout on a receiver that does not answer, and does not reuse that connection', async () => {
    const receiver = await rawReceiver((i) => (i === 0 ? 'hold' : ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n']));
    const connections = new WebhookConnections(4);
    try {
      await expect(connections.send(receiver.target, request, 300)).rejects.toBeInstanceOf(AttemptTimeout);
      expect(await connections.send(receiver.target, request, 2000)).toMatchObject({ status: 200 });
      expect(receiver.connections()).toBe(2);
    } finally {
      connections.destroy();
      await receiver.close();
    }
  });

  it('reports a reset when the receiver closes before answering, and the next attempt opens a new connection', async () => {
    const receiver = await rawReceiver((i) => (i === 0 ? 'close' : ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n']));
    const connections = new WebhookConnections(4);
    try {
      await expect(connections.send(receiver.target, request, 2000)).rejects.toMatchObject({ code: 'ECONNRESET' });
      expect(await connections.send(receiver.target, request, 2000)).toMatchObject({ status: 200 });
    } finally {
      connections.destroy();
      await receiver.close();
    }
  });

  it('drops a connection whose answer body passes 64 KiB, and one the receiver closed while idle', async () => {
    const big = 'x'.repeat(70 * 1024);
    const receiver = await rawReceiver((i) => (i === 0 ? [`HTTP/1.1 200 OK\r\ncontent-length: ${big.length}\r\n\r\n`, big] : ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n']));
    const connections = new WebhookConnections(4);
    try {
      expect(await connections.send(receiver.target, request, 2000)).toMatchObject({ status: 200 });
      expect(await connections.send(receiver.target, request, 2000)).toMatchObject({ status: 200 });
      expect(receiver.connections()).toBe(2);
      await receiver.close(); // closes the idle connection from the receiver's side
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(connections.send(receiver.target, request, 2000)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      connections.destroy();
    }
  });

  it('refuses what is not an HTTP/1 answer', async () => {
    const receiver = await rawReceiver(() => ['SSH-2.0-OpenSSH\r\n\r\n']);
    const connections = new WebhookConnections(4);
    try {
      await expect(connections.send(receiver.target, request, 2000)).rejects.toMatchObject({ code: 'HPE_INVALID_CONSTANT' });
    } finally {
      connections.destroy();
      await receiver.close();
    }
  });
});

describe('WebhookConnections over TLS', () => {
  // A certificate for hooks.test made for this test (openssl), trusted only where the test says so.
  let dir: string;
  let cert: string;
  let key: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'webhook-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=hooks.test', '-addext', 'subjectAltName=DNS:hooks.test',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    key = readFileSync(path.join(dir, 'key.pem'), 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function tlsReceiver() {
    const server = https.createServer({ key, cert }, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-length': '2' }).end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    return {
      port,
      close: () => {
        server.closeAllConnections();
        return new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  it('posts over TLS to the checked address with the URL host as the TLS name, and verifies the certificate', async () => {
    const receiver = await tlsReceiver();
    const trusting = new WebhookConnections(4, cert);
    const plain = new WebhookConnections(4);
    try {
      const target = { protocol: 'https:', address: '127.0.0.1', port: receiver.port, servername: 'hooks.test' };
      expect(await trusting.send(target, request, 5000)).toMatchObject({ status: 200 });
      expect(await trusting.send(target, request, 5000)).toMatchObject({ status: 200 });
      // Another name than the certificate's, or a root nobody trusts: refused.
      await expect(trusting.send({ ...target, servername: 'other.test' }, request, 5000)).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
      await expect(plain.send(target, request, 5000)).rejects.toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    } finally {
      trusting.destroy();
      plain.destroy();
      await receiver.close();
    }
  });
});
