import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { explainConnectError, migrationFailureLine } from './start-errors';
import { canTraverse, explainServerExit } from './postgres-process';

// The one-line start-up messages (issue #10), from the raw errors they replace.
describe('start-up messages', () => {
  const url = 'postgresql://app:secret@db.internal:6543/contacts';

  it('names the cause and the fix of a failed connection, never the password', () => {
    const cases: Array<[object, RegExp]> = [
      [{ code: 'ECONNREFUSED' }, /^database unreachable: nothing accepts connections at db\.internal:6543: .*DATABASE_URL$/],
      [{ code: 'ENOTFOUND' }, /host of DATABASE_URL \(db\.internal:6543\) not found/],
      [{ code: '3D000', message: 'database "contacts" does not exist' }, /^database missing: .*no database "contacts": create it/],
      [{ code: '28P01', message: 'password authentication failed for user "app"' }, /refused the login of user "app".*DATABASE_URL/],
      [{ message: 'timeout expired' }, /no answer from db\.internal:6543 within 10 s/],
    ];
    for (const [error, pattern] of cases) {
      const line = explainConnectError(error, url);
      expect(line).toMatch(pattern);
      expect(line).not.toContain('secret');
      expect(line).not.toContain('\n');
    }
  });

  it('keeps the line of Prisma\'s output that says why migrations failed', () => {
    const output = [
      'prisma migrate deploy failed:',
      'Loaded Prisma config from prisma.config.ts.',
      'Prisma schema loaded from prisma/schema.prisma',
      'Datasource "db": PostgreSQL database "x"',
      'Error: P3018',
      '',
      'A migration failed to apply. New migrations cannot be applied before the error is recovered from.',
      'Database error code: 42P07',
      'Database error:',
      'ERROR: relation "organizations" already exists',
    ].join('\n');
    expect(migrationFailureLine(output)).toBe(
      'Error: P3018 A migration failed to apply. New migrations cannot be applied before the error is recovered from. ERROR: relation "organizations" already exists',
    );
  });

  it('tells a second server on the data folder from a taken port', () => {
    expect(explainServerExit('FATAL:  lock file "postmaster.pid" already exists', '/d', 5)).toMatch(/another server already runs on the data folder \/d/);
    expect(explainServerExit('LOG:  could not bind IPv4 address "127.0.0.1": Address already in use', '/d', 5)).toMatch(/port 5 is already in use.*EMBEDDED_PG_PORT/);
    expect(explainServerExit('2026-01-01 00:00:00.000 UTC [1] FATAL:  data directory "/d" has invalid permissions', '/d', 5)).toBe(
      'embedded PostgreSQL exited at start: FATAL:  data directory "/d" has invalid permissions',
    );
  });

  it('canTraverse follows the execute bits of every folder on the way', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'traverse-'));
    try {
      const inner = path.join(root, 'a', 'b');
      mkdirSync(inner, { recursive: true, mode: 0o755 });
      const stranger = { uid: 65534, gid: 65534 };
      chmodSync(root, 0o700);
      expect(canTraverse(path.join(inner, 'missing'), stranger)).toBe(false);
      expect(canTraverse(path.join(inner, 'missing'), { uid: process.getuid!(), gid: process.getgid!() })).toBe(true);
      chmodSync(root, 0o711);
      expect(canTraverse(path.join(inner, 'missing'), stranger)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
