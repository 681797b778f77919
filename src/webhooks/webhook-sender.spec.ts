import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import type { Agent } from 'undici';
import { freePort } from '../../test/utils/net';
import { waitUntil } from '../../test/utils/wait-until';
import { type Answer, startReceiver } from '../../test/utils/webhook-receiver';
import { nextDelayMs, parseRetryDelays } from '../common/retry-delays';
import type { Resolver, TargetPolicy } from './webhook-address';
import { AttemptStop, retryAfterMsOf, sendAttempt, webhookAgent } from './webhook-sender';
import { newWebhookSecret, signedHeaders } from './webhook-signing';

describe('signing (verified with the Standard Webhooks reference library)', () => {
  it('signs so that standardwebhooks verifies, and a changed body or another secret fails', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ id: 'evt_1', type: 'contact.created', data: { contact: { email: 'ädä@example.com' } } });
    const headers = signedHeaders(secret, 'evt_1', body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('created', 'updated'), headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});

/**
 * A receiver that answers each request with the given raw bytes (pieces written apart, to cross
 * chunk boundaries; '<end>' ends the connection; a number waits that many ms), counts the
 * connections it was opened, and tells when one closes.
 */
async function rawReceiver(answers: (index: number) => (string | number)[] | 'close' | 'hold') {
  let connections = 0;
  /** Whether each connection, in the order they opened, has closed. */
  const closed: boolean[] = [];
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const index = connections++;
    closed.push(false);
    sockets.add(socket);
    let buffered = '';
    socket.on('error', () => undefined);
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
        else if (answer !== 'hold') void write(socket, answer);
      }
    });
    socket.on('close', () => {
      closed[index] = true;
      sockets.delete(socket);
    });
  });
  async function write(socket: net.Socket, pieces: (string | number)[]) {
    for (const piece of pieces) {
      if (socket.destroyed) return;
      if (typeof piece === 'number') await pause(socket, piece);
      else if (piece === '<end>') socket.end();
      else socket.write(piece);
    }
  }
  /** Waits `ms`, or less when the socket closes first: no timer outlives the connection it paces. */
  function pause(socket: net.Socket, ms: number) {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        socket.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      socket.once('close', done);
    });
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: new URL(`http://127.0.0.1:${port}/hook`),
    connections: () => connections,
    /** Whether the first connection has closed. */
    firstClosed: () => closed[0] === true,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const insecure: TargetPolicy = { allowInsecure: true, resolve: () => Promise.reject(new Error('no lookup expected')) };

describe('sendAttempt through webhookAgent', () => {
  const agents: Agent[] = [];
  const agentFor = (policy: () => TargetPolicy, options?: { ca?: string }) => {
    const agent = webhookAgent(policy, options);
    agents.push(agent);
    return agent;
  };
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.destroy()));
  });
  /** Waits (at most 3 s) until every open connection of the agent is free again: an answer's body read away frees its connection. */
  function connectionsFree(agent: Agent) {
    // An Agent keeps a Pool per origin: a connection with no request running may still be finishing its answer.
    const busy = () => Object.values(agent.stats).some((origin) => origin.running > 0 || ('free' in origin && origin.free < origin.connected));
    return waitUntil("the agent's connections are free", () => !busy(), 3000);
  }

  it('connects to the address its connector checked, with the URL host as Host, and sends the signed event', async () => {
    const receiver = await startReceiver();
    try {
      const resolve = jest.fn<ReturnType<Resolver>, Parameters<Resolver>>(() => Promise.resolve([{ address: '127.0.0.1', family: 4 }]));
      const agent = agentFor(() => ({ allowInsecure: true, resolve }));
      const secret = newWebhookSecret();
      const body = '{"id":"evt_2"}';
      const url = new URL(`http://hooks.rebind.test:${receiver.port}/hook?x=1`);
      expect(await sendAttempt(url, signedHeaders(secret, 'evt_2', body), body, { agent })).toEqual({ status: 200, error: null, retryAfterMs: null });
      await connectionsFree(agent);
      expect(await sendAttempt(url, signedHeaders(secret, 'evt_2', body), body, { agent })).toMatchObject({ status: 200 });
      expect(resolve).toHaveBeenCalledWith('hooks.rebind.test');
      expect(resolve).toHaveBeenCalledTimes(1); // one connection, kept alive
      expect(receiver.received).toHaveLength(2);
      const [hook] = receiver.received;
      expect(hook.headers.host).toBe(`hooks.rebind.test:${receiver.port}`);
      expect(hook.path).toBe('/hook?x=1');
      expect(hook.headers['content-type']).toBe('application/json');
      expect(hook.headers['user-agent']).toBe('ContactSync-Webhooks/1');
      expect(new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>)).toEqual({ id: 'evt_2' });
    } finally {
      await receiver.close();
    }
  });

  it('refuses in the connector a name that resolves to any non-public address, and literal non-public hosts without a lookup', async () => {
    const receiver = await startReceiver();
    try {
      const answers: Record<string, { address: string; family: 4 | 6 }[]> = {
        'rebound.test': [{ address: '127.0.0.1', family: 4 }],
        'mixed.test': [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }],
      };
      const resolve = jest.fn((host: string) => Promise.resolve(answers[host]));
      const agent = agentFor(() => ({ allowInsecure: false, resolve }));
      for (const host of ['rebound.test', 'mixed.test']) {
        expect(await sendAttempt(new URL(`http://${host}:${receiver.port}/hook`), {}, '{}', { agent })).toEqual({
          status: null,
          error: 'refused: url host resolves to a non-public address',
          retryAfterMs: null,
        });
      }
      for (const url of [`http://127.0.0.1:${receiver.port}/`, `http://[::1]:${receiver.port}/`, `http://[::ffff:127.0.0.1]:${receiver.port}/`]) {
        expect(await sendAttempt(new URL(url), {}, '{}', { agent })).toMatchObject({ status: null, error: 'refused: url host resolves to a non-public address' });
      }
      expect(resolve).toHaveBeenCalledTimes(2);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('checks again when a new connection opens: a name re-pointed at a private address is refused then', async () => {
    const receiver = await startReceiver();
    try {
      let allowInsecure = true;
      const agent = agentFor(() => ({ allowInsecure, resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]) }));
      const url = new URL(`http://hooks.test:${receiver.port}/hook`);
      expect(await sendAttempt(url, {}, '{}', { agent })).toMatchObject({ status: 200 });
      await receiver.close(); // the kept-alive connection ends
      const again = await startReceiver();
      try {
        allowInsecure = false;
        const moved = new URL(`http://hooks.test:${again.port}/hook`);
        expect(await sendAttempt(moved, {}, '{}', { agent })).toMatchObject({ status: null, error: 'refused: url host resolves to a non-public address' });
        expect(again.received).toHaveLength(0);
      } finally {
        await again.close();
      }
    } finally {
      await receiver.close();
    }
  });

  it('does not follow a redirect, reads Retry-After on 429/503, and reports a refused connection', async () => {
    const answers: Answer[] = [{ status: 302, headers: { location: 'http://127.0.0.1:1/' } }, { status: 503, headers: { 'retry-after': '7' } }, { status: 429, headers: { 'retry-after': 'soon' } }];
    const receiver = await startReceiver(() => answers.shift() ?? { status: 200 });
    const agent = agentFor(() => insecure);
    try {
      const url = new URL(receiver.url);
      expect(await sendAttempt(url, {}, '{}', { agent })).toEqual({ status: 302, error: null, retryAfterMs: null });
      expect(await sendAttempt(url, {}, '{}', { agent })).toEqual({ status: 503, error: null, retryAfterMs: 7000 });
      expect(await sendAttempt(url, {}, '{}', { agent })).toEqual({ status: 429, error: null, retryAfterMs: null });
      expect(receiver.received).toHaveLength(3);
    } finally {
      await receiver.close();
    }
    const closed = new URL(`http://127.0.0.1:${await freePort()}/hook`);
    expect(await sendAttempt(closed, {}, '{}', { agent })).toMatchObject({ status: null, error: 'connection refused' });
  });

  it('gives up on a receiver that does not answer in time and closes that connection; the next attempt goes on another', async () => {
    const receiver = await rawReceiver((i) => (i === 0 ? 'hold' : ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n']));
    const agent = agentFor(() => insecure);
    try {
      expect(await sendAttempt(receiver.url, {}, '{}', { agent, timeoutMs: 300 })).toEqual({ status: null, error: 'no answer within 0.3 s', retryAfterMs: null });
      expect(await sendAttempt(receiver.url, {}, '{}', { agent })).toMatchObject({ status: 200 });
      expect(receiver.firstClosed()).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('reads bodies framed by Content-Length and chunked across pieces, skips 103, and reuses one connection for all', async () => {
    const answers = [
      ['HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhel', 'lo'],
      ['HTTP/1.1 103 Early Hints\r\nlink: </a.css>\r\n\r\n', 'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\ntransfer-encoding: chunked\r\n\r\n3\r', '\nabc\r\n0\r\n', 'x-trailer: 1\r\n\r\n'],
      ['HTTP/1.1 204 No Content\r\n\r\n'],
      ['HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n'],
    ];
    const receiver = await rawReceiver((i) => answers[i]);
    const agent = agentFor(() => insecure);
    try {
      const statuses = [];
      for (let i = 0; i < answers.length; i++) {
        const result = await sendAttempt(receiver.url, {}, '{}', { agent });
        statuses.push(result.status);
        await connectionsFree(agent);
      }
      expect(statuses).toEqual([200, 503, 204, 201]);
      expect(receiver.connections()).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it.each([
    ['a body that trickles', ['HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n', 'a', 100, 'b', 100, 'c', 100, 'd', 5000]],
    ['an endless chunked body', ['HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n', '1\r\na\r\n', 100, '1\r\nb\r\n', 100, '1\r\nc\r\n', 5000]],
    ['a body with no length that never ends', ['HTTP/1.1 202 Accepted\r\n\r\n', 'started', 5000]],
  ] as const)('takes a 2xx as the answer when its head arrives, with %s, and closes the connection by the end of the attempt', async (_kind, answer) => {
    const receiver = await rawReceiver(() => [...answer]);
    const agent = agentFor(() => insecure);
    try {
      const began = Date.now();
      const result = await sendAttempt(receiver.url, {}, '{}', { agent, timeoutMs: 1000 });
      expect(result).toEqual({ status: answer[0].includes('202') ? 202 : 200, error: null, retryAfterMs: null });
      expect(Date.now() - began).toBeLessThan(500);
      while (!receiver.firstClosed() && Date.now() - began < 3000) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(receiver.firstClosed()).toBe(true);
      expect(Date.now() - began).toBeLessThan(2000);
    } finally {
      await receiver.close();
    }
  });

  it('drops a connection whose answer body passes 64 KiB', async () => {
    const big = 'x'.repeat(70 * 1024);
    const receiver = await rawReceiver((i) => (i === 0 ? [`HTTP/1.1 200 OK\r\ncontent-length: ${big.length}\r\n\r\n`, big] : ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n']));
    const agent = agentFor(() => insecure);
    try {
      expect(await sendAttempt(receiver.url, {}, '{}', { agent })).toMatchObject({ status: 200 });
      // The body is read away after the answer, so the drop comes a little later: wait for it, within a bound.
      await waitUntil('the first connection is dropped', () => receiver.firstClosed(), 3000);
      expect(receiver.firstClosed()).toBe(true);
      expect(await sendAttempt(receiver.url, {}, '{}', { agent })).toMatchObject({ status: 200 });
    } finally {
      await receiver.close();
    }
  });

  it('reports what is not an HTTP/1 answer, and a reset before the answer', async () => {
    const receiver = await rawReceiver((i) => (i === 0 ? ['SSH-2.0-OpenSSH\r\n\r\n'] : 'close'));
    const agent = agentFor(() => insecure);
    try {
      expect(await sendAttempt(receiver.url, {}, '{}', { agent })).toMatchObject({ status: null, error: 'not an HTTP/1.1 answer' });
      expect(await sendAttempt(receiver.url, {}, '{}', { agent })).toMatchObject({ status: null, error: 'connection reset' });
    } finally {
      await receiver.close();
    }
  });

  it('ends the attempts under way at once when their stop is stopped, naming the reason; one started later ends at once too', async () => {
    const receiver = await rawReceiver(() => 'hold');
    const agent = agentFor(() => insecure);
    try {
      const stop = new AttemptStop();
      const began = Date.now();
      const attempts = [sendAttempt(receiver.url, {}, '{}', { agent, stop }), sendAttempt(receiver.url, {}, '{}', { agent, stop })];
      setTimeout(() => stop.stop(new Error('the instance stopped')), 100);
      for (const attempt of attempts) expect(await attempt).toEqual({ status: null, error: 'the instance stopped', retryAfterMs: null, stopped: true });
      expect(Date.now() - began).toBeLessThan(2000);
      expect(stop.size).toBe(0);
      expect(await sendAttempt(receiver.url, {}, '{}', { agent, stop })).toMatchObject({ status: null, stopped: true });
    } finally {
      await receiver.close();
    }
  });
});

describe('sendAttempt over TLS', () => {
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

  it('connects to the checked address with the URL host as the TLS name, and verifies the certificate', async () => {
    const server = https.createServer({ key, cert }, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-length': '2' }).end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const policy = () => ({ allowInsecure: true, resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 as const }]) });
    const trusting = webhookAgent(policy, { ca: cert });
    const plain = webhookAgent(policy);
    try {
      const url = new URL(`https://hooks.test:${port}/hook`);
      expect(await sendAttempt(url, {}, '{}', { agent: trusting })).toMatchObject({ status: 200 });
      // Another name than the certificate's, or a root nobody trusts: refused.
      expect(await sendAttempt(new URL(`https://other.test:${port}/hook`), {}, '{}', { agent: trusting })).toMatchObject({ status: null, error: 'TLS: ERR_TLS_CERT_ALTNAME_INVALID' });
      expect(await sendAttempt(url, {}, '{}', { agent: plain })).toMatchObject({ status: null, error: 'TLS: DEPTH_ZERO_SELF_SIGNED_CERT' });
    } finally {
      await Promise.all([trusting.destroy(), plain.destroy()]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('retry schedule', () => {
  it('parses WEBHOOK_RETRY_DELAYS and refuses what is not a list of positive seconds', () => {
    expect(parseRetryDelays('5, 30,0.5')).toEqual([5, 30, 0.5]);
    for (const bad of ['', '5,,6', '0', '-1', 'abc', '5;6']) expect(parseRetryDelays(bad)).toBeNull();
  });

  it('waits the k-th delay plus up to 20% after the k-th failure, then gives up; Retry-After wins', () => {
    const delays = [5, 30];
    expect(nextDelayMs(1, delays, null, () => 0)).toBe(5000);
    expect(nextDelayMs(1, delays, null, () => 0.999)).toBe(5999);
    expect(nextDelayMs(2, delays, null, () => 0.5)).toBe(33000);
    expect(nextDelayMs(3, delays, null)).toBeNull();
    expect(nextDelayMs(1, delays, 120_000)).toBe(120_000);
    expect(retryAfterMsOf('12')).toBe(12_000);
    expect(retryAfterMsOf(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(55_000);
    expect(retryAfterMsOf('soon')).toBeNull();
  });
});
