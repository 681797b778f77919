import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../utils/test-database';
import { catalogSnapshot, type CatalogSnapshot } from './catalog-snapshot';
import { PROJECT_ROOT } from '../../src/database/project-root';

const SCHEMA = path.join(PROJECT_ROOT, 'prisma', 'schema.prisma');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The Prisma CLI through scripts/prisma.js, on `databaseUrl` (prisma.config.ts's adapter needs one that answers). */
function prisma(args: string[], databaseUrl: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['scripts/prisma.js', ...args],
      { cwd: PROJECT_ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, maxBuffer: 10 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** B: the SQL that builds `schemaPath` from nothing (`migrate diff --from-empty`), applied to an empty database. */
async function buildFromSchema(schemaPath: string): Promise<{ database: TestDatabase; snapshot: CatalogSnapshot }> {
  const database = await createEmptyDatabase('contact_sync_drift');
  const diff = await prisma(['migrate', 'diff', '--from-empty', '--to-schema-datamodel', schemaPath, '--script'], database.url);
  if (diff.code !== 0) throw new Error(`prisma migrate diff failed: ${diff.stderr}`);
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(diff.stdout); // one script, several statements (simple query protocol)
  } finally {
    await client.end();
  }
  return { database, snapshot: await catalogSnapshot(database.url) };
}

/**
 * Indexes schema.prisma cannot express (a column collation, a partial index), created by a
 * migration only. Listed here one by one, so any other difference still fails.
 */
const MIGRATION_ONLY_INDEXES = [
  'CREATE INDEX contacts_organization_id_email_c_idx ON public.contacts USING btree (organization_id, email COLLATE "C")',
  'CREATE INDEX list_memberships_list_id_email_c_idx ON public.list_memberships USING btree (list_id, email COLLATE "C")',
  'CREATE INDEX suppressions_organization_id_email_c_idx ON public.suppressions USING btree (organization_id, email COLLATE "C")',
  "CREATE INDEX webhook_deliveries_pending_webhook_id_next_attempt_at_idx ON public.webhook_deliveries USING btree (webhook_id, next_attempt_at) WHERE (state = 'pending'::text)",
  "CREATE INDEX webhook_deliveries_pending_contact_idx ON public.webhook_deliveries USING btree (webhook_id, contact_id, \"position\", seq) WHERE (state = ANY (ARRAY['pending'::text, 'leased'::text]))",
  "CREATE INDEX webhook_deliveries_leased_next_attempt_at_idx ON public.webhook_deliveries USING btree (next_attempt_at) WHERE (state = 'leased'::text)",
];

/**
 * Constraints schema.prisma cannot express: the events' deferred commit-order trigger (migration
 * 20261124060000_events; docs/events.md), a constraint trigger in PostgreSQL's catalog.
 */
const MIGRATION_ONLY_CONSTRAINTS = ['events events_commit_position TRIGGER DEFERRABLE INITIALLY DEFERRED DEFERRABLE'];

/**
 * Sequences schema.prisma cannot express: the events' commit positions (migration
 * 20261124090000_event_position_sequence; docs/events.md), taken by the commit-order trigger.
 */
const MIGRATION_ONLY_SEQUENCES = ['event_position_seq'];

/**
 * What schema.prisma cannot express about its own columns and keys, changed by a migration only
 * (20261124194500_listing5_contact_id_c): contact ids in the "C" collation (byte comparisons), and
 * the membership primary key covering created_at. Migrated line -> the line schema.prisma builds.
 */
const MIGRATION_ONLY_CHANGES: Record<keyof CatalogSnapshot, Record<string, string>> = {
  tables: {},
  columns: {
    'contacts.id text NOT NULL DEFAULT (gen_random_uuid())::text COLLATE "C"': 'contacts.id text NOT NULL DEFAULT (gen_random_uuid())::text',
    'list_memberships.contact_id text NOT NULL COLLATE "C"': 'list_memberships.contact_id text NOT NULL',
  },
  indexes: {
    'CREATE UNIQUE INDEX list_memberships_pkey ON public.list_memberships USING btree (contact_id, list_id) INCLUDE (created_at)':
      'CREATE UNIQUE INDEX list_memberships_pkey ON public.list_memberships USING btree (contact_id, list_id)',
  },
  constraints: {
    'list_memberships list_memberships_pkey PRIMARY KEY (contact_id, list_id) INCLUDE (created_at)':
      'list_memberships list_memberships_pkey PRIMARY KEY (contact_id, list_id)',
  },
  enums: {},
  sequences: {},
};

/** `snapshot` without the migration-only indexes, constraints and sequences, and with the migration-only changes undone (all asserted present where they must be). */
function withoutMigrationOnly(snapshot: CatalogSnapshot): CatalogSnapshot {
  const undo = (part: keyof CatalogSnapshot) => snapshot[part].map((line) => MIGRATION_ONLY_CHANGES[part][line] ?? line).sort();
  return {
    ...snapshot,
    columns: undo('columns'),
    indexes: undo('indexes').filter((line) => !MIGRATION_ONLY_INDEXES.includes(line)),
    constraints: undo('constraints').filter((line) => !MIGRATION_ONLY_CONSTRAINTS.includes(line)),
    sequences: snapshot.sequences.filter((line) => !MIGRATION_ONLY_SEQUENCES.includes(line)),
  };
}

/** Lines present in one snapshot and not the other, for a readable failure. */
function differences(a: CatalogSnapshot, b: CatalogSnapshot): string[] {
  return (Object.keys(a) as Array<keyof CatalogSnapshot>).flatMap((part) => [
    ...a[part].filter((line) => !b[part].includes(line)).map((line) => `only in migrations: ${part}: ${line}`),
    ...b[part].filter((line) => !a[part].includes(line)).map((line) => `only in schema.prisma: ${part}: ${line}`),
  ]);
}

describe('migrations and schema.prisma', () => {
  const cleanup: Array<() => Promise<void>> = [];
  let migrated: CatalogSnapshot;
  let fromSchema: CatalogSnapshot;
  let fromEditedSchema: CatalogSnapshot;
  let status: Run;

  beforeAll(async () => {
    // A: the template built by `prisma migrate deploy` in global setup (cloned).
    const a = await createTestDatabase();
    cleanup.push(() => a.drop());
    migrated = await catalogSnapshot(a.url);

    // schema.prisma with one column more and no migration for it: what the drift check must catch.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'contact-sync-schema-'));
    cleanup.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const edited = readFileSync(SCHEMA, 'utf8').replace(/(model Contact \{\n)/, '$1  nickname String?\n');
    writeFileSync(path.join(dir, 'schema.prisma'), edited);

    // Each Prisma run takes seconds, mostly waiting: run them side by side.
    const [b, c, s] = await Promise.all([
      buildFromSchema(SCHEMA),
      buildFromSchema(path.join(dir, 'schema.prisma')),
      prisma(['migrate', 'status'], a.url),
    ]);
    cleanup.push(() => b.database.drop(), () => c.database.drop());
    fromSchema = b.snapshot;
    fromEditedSchema = c.snapshot;
    status = s;
  }, 180_000);

  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('the migrations build exactly the schema that schema.prisma describes', () => {
    // Not a vacuous comparison: the snapshot holds the model's tables, columns, indexes, enums.
    expect(migrated.tables).toEqual(expect.arrayContaining(['contacts (r)', 'organizations (r)', 'suppressions (r)']));
    expect(migrated.columns).toContain('contacts.email text NOT NULL');
    expect(migrated.indexes).toContain(
      'CREATE UNIQUE INDEX contacts_organization_id_email_key ON public.contacts USING btree (organization_id, email)',
    );
    expect(migrated.enums).toContain('suppression_reason: bounced, complained, unsubscribed');
    expect(migrated.tables).not.toContain('_prisma_migrations (r)');

    expect(migrated.indexes).toEqual(expect.arrayContaining(MIGRATION_ONLY_INDEXES));
    expect(migrated.constraints).toEqual(expect.arrayContaining(MIGRATION_ONLY_CONSTRAINTS));
    expect(migrated.sequences).toEqual(expect.arrayContaining(MIGRATION_ONLY_SEQUENCES));
    for (const part of ['columns', 'indexes', 'constraints'] as const) {
      expect(migrated[part]).toEqual(expect.arrayContaining(Object.keys(MIGRATION_ONLY_CHANGES[part])));
    }
    expect(differences(withoutMigrationOnly(migrated), fromSchema)).toEqual([]);
    expect(fromSchema).toEqual(withoutMigrationOnly(migrated));
  });

  it('would catch an edit of schema.prisma that has no migration', () => {
    expect(differences(withoutMigrationOnly(migrated), fromEditedSchema)).toEqual([
      'only in schema.prisma: columns: contacts.nickname text NULL',
    ]);
  });

  it('prisma migrate status reports the migrated database up to date', () => {
    expect(status.code).toBe(0);
    expect(status.stdout + status.stderr).toMatch(/Database schema is up to date/);
  });
});
