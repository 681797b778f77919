import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { generateApiKey } from '../../src/auth/api-key';

/** Helpers for tests of the production process, `node dist/main.js` (build it first). */
export const ROOT = path.resolve(__dirname, '..', '..');

/** An organization, an API key and a list, written with plain SQL (the service's own tables). */
export async function seed(url: string): Promise<{ key: string; listId: string }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const orgId = randomUUID();
    const listId = randomUUID();
    const { key, prefix, keyHash } = generateApiKey();
    await client.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [orgId, 'Shutdown org']);
    await client.query('INSERT INTO api_keys (id, organization_id, prefix, key_hash) VALUES ($1, $2, $3, $4)', [randomUUID(), orgId, prefix, keyHash]);
    await client.query('INSERT INTO lists (id, organization_id, name) VALUES ($1, $2, $3)', [listId, orgId, 'News']);
    return { key, listId };
  } finally {
    await client.end();
  }
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startService(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', MIGRATE_ON_START: 'false', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exit };
}

export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting until ${what}`);
}

/** Everything the server sends on a socket until it closes it, or until the timeout. */
export function readAll(socket: Socket, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const timer = setTimeout(() => resolve(data), timeoutMs);
    socket.on('data', (c: Buffer) => (data += c.toString()));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
  });
}

