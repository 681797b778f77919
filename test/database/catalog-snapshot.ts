import { Client } from 'pg';

/**
 * What a database's `public` schema is made of, read from PostgreSQL's catalogs, in a stable
 * order: tables, columns (type, nullability, default, a collation other than the type's), indexes and constraints (with their
 * definitions), enum types (labels in order) and sequences. Prisma's own `_prisma_migrations`
 * table is left out: only a database built by `migrate deploy` has it. Column order is not
 * compared: a column added by a later migration comes last, which is not drift.
 */
export interface CatalogSnapshot {
  tables: string[];
  columns: string[];
  indexes: string[];
  constraints: string[];
  enums: string[];
  sequences: string[];
}

const EXCLUDED = '_prisma_migrations';

export async function catalogSnapshot(url: string): Promise<CatalogSnapshot> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const lines = async (sql: string) =>
      (await client.query<{ line: string }>(sql, [EXCLUDED])).rows.map((r) => r.line).sort(); // stable order, independent of the server's collation
    return {
      tables: await lines(`
        SELECT c.relname || ' (' || c.relkind::text || ')' AS line
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relname <> $1
        `),
      columns: await lines(`
        SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
          || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE ' NULL' END
          || COALESCE(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
          || CASE WHEN a.attidentity <> '' THEN ' IDENTITY ' || a.attidentity::text ELSE '' END
          || CASE WHEN a.attgenerated <> '' THEN ' GENERATED ' || a.attgenerated::text ELSE '' END
          || CASE WHEN a.attcollation <> t.typcollation THEN ' COLLATE ' || quote_ident(co.collname) ELSE '' END AS line
        FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_type t ON t.oid = a.atttypid
        LEFT JOIN pg_collation co ON co.oid = a.attcollation
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> $1
          AND a.attnum > 0 AND NOT a.attisdropped
        `),
      indexes: await lines(`
        SELECT indexdef AS line FROM pg_indexes
        WHERE schemaname = 'public' AND tablename <> $1
        `),
      constraints: await lines(`
        SELECT COALESCE(c.relname, t.typname) || ' ' || con.conname || ' ' || pg_get_constraintdef(con.oid)
          || CASE WHEN con.condeferrable THEN ' DEFERRABLE' ELSE '' END AS line
        FROM pg_constraint con
        JOIN pg_namespace n ON n.oid = con.connamespace
        LEFT JOIN pg_class c ON c.oid = con.conrelid
        LEFT JOIN pg_type t ON t.oid = con.contypid
        WHERE n.nspname = 'public' AND COALESCE(c.relname, '') <> $1
        `),
      enums: await lines(`
        SELECT t.typname || ': ' || string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder) AS line
        FROM pg_type t
        JOIN pg_namespace n ON n.oid = t.typnamespace
        JOIN pg_enum e ON e.enumtypid = t.oid
        WHERE n.nspname = 'public' AND t.typname <> $1
        GROUP BY t.typname
        `),
      sequences: await lines(`
        SELECT c.relname AS line FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'S' AND c.relname <> $1
        `),
    };
  } finally {
    await client.end();
  }
}
