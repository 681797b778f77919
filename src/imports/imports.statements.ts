import { randomUUID } from 'node:crypto';
import { defineStatement } from '../database/statements';

/**
 * The SQL of imports (contract section 17). Uploads: the import row and its file rows (COPY,
 * src/database/copy.ts) in one transaction. Processing: an import is claimed with `FOR UPDATE
 * SKIP LOCKED` and a lease; each chunk's transaction renews the lease (the import row stays locked
 * until it commits), writes its rows' results and advances the counts, so a row has a result
 * exactly when its writes committed.
 */

/** What every answer about an import needs, in the order of ImportRecord (import-view.ts). */
const IMPORT_COLUMNS = `i.id, i.organization_id AS "organizationId", i.status, i.format, i.overwrite, i.dry_run AS "dryRun",
        i.request_id AS "requestId", i.client_request_id AS "clientRequestId", i.csv_header AS "csvHeader", i.rows, i.processed,
        i.created, i.updated, i.unchanged, i.failed, i.codes, i.created_at AS "createdAt", i.started_at AS "startedAt",
        i.finished_at AS "finishedAt", i.error_code AS "errorCode", i.error_message AS "errorMessage"`;

export interface ImportRow {
  id: string;
  organizationId: string;
  status: 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';
  format: 'ndjson' | 'csv';
  overwrite: boolean;
  dryRun: boolean;
  requestId: string;
  clientRequestId: string | null;
  csvHeader: string[] | null;
  rows: number;
  processed: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  codes: Record<string, number>;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  errorCode: string | null;
  errorMessage: string | null;
}

const IMPORT_KEYS: Array<keyof ImportRow> = [
  'id', 'organizationId', 'status', 'format', 'overwrite', 'dryRun', 'requestId', 'clientRequestId', 'csvHeader', 'rows', 'processed',
  'created', 'updated', 'unchanged', 'failed', 'codes', 'createdAt', 'startedAt', 'finishedAt', 'errorCode', 'errorMessage',
];

/** An upload's COPY may run longer than DB_STATEMENT_TIMEOUT_MS: lifted for its transaction only. */
export const NO_STATEMENT_TIMEOUT = defineStatement<{ value: string }>({
  name: 'imports.no-statement-timeout',
  text: `SELECT set_config('statement_timeout', '0', true) AS value`,
  columns: ['value'],
  sample: () => [],
});

/** The import of an upload, before its rows (their foreign key). $1 id … $8 csv header. */
export const INSERT_IMPORT = defineStatement<{ id: string }>({
  name: 'imports.insert',
  text: `INSERT INTO imports (id, organization_id, status, format, overwrite, dry_run, request_id, client_request_id, csv_header, rows)
        VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8, 0) RETURNING id`,
  columns: ['id'],
  // Runs only inside a rolled-back transaction (warm-up, the schema test): a fresh id each time.
  sample: (organizationId) => [`imp_${randomUUID().replace(/-/g, '')}`, organizationId, 'ndjson', false, false, 'sample', null, null],
});

/**
 * After the COPY: the row count $2, the CSV header $3, and DUPLICATE_IN_REQUEST set-based (a seen row whose email an
 * earlier seen row of the import has gets that row's number). Returns the import.
 */
export const SEAL_IMPORT = defineStatement<ImportRow>({
  name: 'imports.seal',
  text: `WITH firsts AS (
        SELECT email, min(row) AS first FROM import_rows
        WHERE import_id = $1 AND seen GROUP BY email HAVING count(*) > 1
      ), marked AS (
        UPDATE import_rows r SET duplicate_of = f.first FROM firsts f
        WHERE r.import_id = $1 AND r.seen AND r.email = f.email AND r.row > f.first
      )
      UPDATE imports i SET rows = $2, csv_header = $3::text[] WHERE i.id = $1 RETURNING ${IMPORT_COLUMNS}`,
  columns: IMPORT_KEYS,
  sample: () => ['imp_none', 0, null],
});

/**
 * Takes one import to process for instance $1 with a lease of $2 seconds: a running one whose
 * lease ended (its instance died), or the oldest queued import of an organization with fewer
 * than $3 running (so each organization's imports start in creation order, and one organization's
 * running imports never hold up another's). SKIP LOCKED: an import another instance is taking or
 * working on (its chunk holds the row) is left to it. $4: only that import (the admin command
 * line processes its own), or null for any.
 */
export const CLAIM_IMPORT = defineStatement<ImportRow>({
  name: 'imports.claim',
  text: `WITH candidate AS (
        SELECT c.id FROM imports c
        WHERE ($4::text IS NULL OR c.id = $4::text)
          AND ((c.status = 'running' AND c.lease_expires_at < now())
           OR (c.status = 'queued'
               AND NOT EXISTS (SELECT 1 FROM imports o WHERE o.organization_id = c.organization_id AND o.status = 'queued'
                               AND (o.created_at, o.id) < (c.created_at, c.id))
               AND (SELECT count(*) FROM imports r WHERE r.organization_id = c.organization_id AND r.status = 'running') < $3::int))
        ORDER BY c.created_at, c.id
        LIMIT 1
        FOR UPDATE SKIP LOCKED
      )
      UPDATE imports i SET status = 'running', started_at = coalesce(i.started_at, now()), leased_by = $1,
                           lease_expires_at = now() + make_interval(secs => $2::int)
      FROM candidate WHERE i.id = candidate.id
      RETURNING ${IMPORT_COLUMNS}`,
  columns: IMPORT_KEYS,
  sample: () => ['sample', 1, 0, null],
});

/**
 * The import's cancel turn: a transaction-scoped advisory lock on the import id, taken shared by
 * each chunk and exclusive by a cancel, before either locks the import's row. A cancel that waits
 * for the chunk in progress is granted the lock when that chunk commits, so the next chunk waits
 * for the cancel instead of taking the row first (a waiter on a row that was updated meanwhile
 * has no place in line for its newest version).
 */
const CANCEL_TURN = 1229803587; // 'IMPC'

/**
 * A chunk's first statement: renews the lease of instance $2 on import $1 (and locks the row
 * until the chunk commits). No row: the import was cancelled or another instance took it over.
 */
export const RENEW_LEASE = defineStatement<{ processed: number }>({
  name: 'imports.renew-lease',
  text: `WITH turn AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(${CANCEL_TURN}, hashtext($1::text)))
      UPDATE imports SET lease_expires_at = now() + make_interval(secs => $3::int)
        FROM turn WHERE id = $1 AND leased_by = $2 AND status = 'running' RETURNING processed`,
  columns: ['processed'],
  sample: () => ['imp_none', 'sample', 1],
});

export interface StoredImportRow {
  row: number;
  line: string | null;
  cells: string[] | null;
  problem: string | null;
  email: string | null;
  duplicateOf: number | null;
}

/**
 * The next $3 rows of import $1 after row $2, in file order. An upload numbers its rows 1, 2, … with
 * no gap, so they are rows $2 + 1 to $2 + $3: the range bounds the scan whatever the plan (a scan of
 * every row after $2, sorted, would make an import's chunks cost the square of its rows).
 */
export const NEXT_ROWS = defineStatement<StoredImportRow>({
  name: 'imports.next-rows',
  text: `SELECT row, line, cells, problem, email, duplicate_of AS "duplicateOf"
        FROM import_rows WHERE import_id = $1 AND row > $2 AND row <= $2 + $3 ORDER BY row LIMIT $3`,
  columns: ['row', 'line', 'cells', 'problem', 'email', 'duplicateOf'],
  sample: () => ['imp_none', 0, 1],
});

/**
 * The results of a chunk: $2 row numbers (ascending), $3 statuses, $4 result texts. The range of
 * $2 bounds the rows any plan reads to the chunk's.
 */
export const WRITE_RESULTS = defineStatement<{ written: number }>({
  name: 'imports.write-results',
  text: `WITH w AS (
        UPDATE import_rows r SET status = u.status, result = u.result
        FROM unnest($2::int[], $3::text[], $4::text[]) AS u(row, status, result)
        WHERE r.import_id = $1 AND r.row = u.row AND r.status IS NULL
          AND r.row BETWEEN $2[1] AND $2[cardinality($2)]
        RETURNING 1
      ) SELECT count(*)::int AS written FROM w`,
  columns: ['written'],
  sample: () => ['imp_none', [], [], []],
});

/**
 * A chunk's progress: $2 rows processed, the counts $3–$6 and failed rows by code $7 (jsonb)
 * added; `completed` once every row is processed. Returns the import.
 */
export const ADVANCE_IMPORT = defineStatement<ImportRow>({
  name: 'imports.advance',
  text: `UPDATE imports i SET processed = i.processed + $2, created = i.created + $3, updated = i.updated + $4,
          unchanged = i.unchanged + $5, failed = i.failed + $6,
          codes = (SELECT coalesce(jsonb_object_agg(k, s), '{}'::jsonb) FROM (
                     SELECT k, sum(v)::int AS s FROM (
                       SELECT key AS k, value::int AS v FROM jsonb_each_text(i.codes)
                       UNION ALL SELECT key, value::int FROM jsonb_each_text($7::jsonb)) AS a GROUP BY k) AS b),
          status = CASE WHEN i.processed + $2 >= i.rows THEN 'completed' ELSE i.status END,
          finished_at = CASE WHEN i.processed + $2 >= i.rows THEN now() ELSE NULL END,
          leased_by = CASE WHEN i.processed + $2 >= i.rows THEN NULL ELSE i.leased_by END
        WHERE i.id = $1 RETURNING ${IMPORT_COLUMNS}`,
  columns: IMPORT_KEYS,
  sample: () => ['imp_none', 0, 0, 0, 0, 0, '{}'],
});

/** The service could not finish import $1: `failed` with error $2/$3. */
export const FAIL_IMPORT = defineStatement<ImportRow>({
  name: 'imports.fail',
  text: `UPDATE imports i SET status = 'failed', finished_at = now(), leased_by = NULL, error_code = $2, error_message = $3
        WHERE i.id = $1 AND i.status = 'running' RETURNING ${IMPORT_COLUMNS}`,
  columns: IMPORT_KEYS,
  sample: () => ['imp_none', 'X', 'x'],
});

/** Instance $1 stops (shutdown): its imports' leases end now, for another instance to continue. */
export const RELEASE_LEASES = defineStatement<{ released: number }>({
  name: 'imports.release-leases',
  text: `WITH r AS (UPDATE imports SET lease_expires_at = now() WHERE leased_by = $1 AND status = 'running' RETURNING 1)
        SELECT count(*)::int AS released FROM r`,
  columns: ['released'],
  sample: () => ['sample-none'],
});

/**
 * Cancels import $1 of organization $2 if it has not ended (waits for a chunk in progress, and
 * takes effect before the next: CANCEL_TURN).
 */
export const CANCEL_IMPORT = defineStatement<ImportRow>({
  name: 'imports.cancel',
  text: `WITH turn AS MATERIALIZED (SELECT pg_advisory_xact_lock(${CANCEL_TURN}, hashtext($1::text)))
      UPDATE imports i SET status = 'cancelled', finished_at = now(), leased_by = NULL
        FROM turn WHERE i.id = $1 AND i.organization_id = $2 AND i.status IN ('queued', 'running') RETURNING ${IMPORT_COLUMNS}`,
  columns: IMPORT_KEYS,
  sample: () => ['imp_none', '00000000-0000-0000-0000-000000000000'],
});

/** Import $1 of organization $2. */
export const GET_IMPORT = defineStatement<ImportRow>({
  name: 'imports.get',
  text: `SELECT ${IMPORT_COLUMNS} FROM imports i WHERE i.id = $1 AND i.organization_id = $2`,
  columns: IMPORT_KEYS,
  sample: () => ['imp_none', '00000000-0000-0000-0000-000000000000'],
});

/**
 * A page of organization $1's imports, newest first: $2 limit, after ($3 created_at, $4 id) when
 * given, only X-Client-Request-Id $5 when given.
 */
export const LIST_IMPORTS = defineStatement<ImportRow>({
  name: 'imports.list',
  text: `SELECT ${IMPORT_COLUMNS} FROM imports i
        WHERE i.organization_id = $1
          AND ($3::timestamptz IS NULL OR (i.created_at, i.id) < ($3::timestamptz, $4::text))
          AND ($5::text IS NULL OR i.client_request_id = $5::text)
        ORDER BY i.created_at DESC, i.id DESC LIMIT $2`,
  columns: IMPORT_KEYS,
  sample: (organizationId) => [organizationId, 1, null, null, null],
});

/** Result lines of import $1 after row $2, at most $3, only status $4 when given, in row order. */
export const RESULT_LINES = defineStatement<{ row: number; email: string | null; result: string }>({
  name: 'imports.result-lines',
  text: `SELECT row, email, result FROM import_rows
        WHERE import_id = $1 AND row > $2 AND result IS NOT NULL AND ($4::text IS NULL OR status = $4::text)
        ORDER BY row LIMIT $3`,
  columns: ['row', 'email', 'result'],
  sample: () => ['imp_none', 0, 1, null],
});

/**
 * Erasure (contract 13): every row of organization $1's imports holding address $2 loses its
 * content and its email (its result line keeps its place with email null). Returns how many.
 */
export const ERASE_IMPORT_ROWS = defineStatement<{ erased: number }>({
  name: 'imports.erase-rows',
  text: `WITH e AS (
        UPDATE import_rows r SET line = NULL, cells = NULL, email = NULL
        FROM imports i WHERE r.email = $2 AND i.id = r.import_id AND i.organization_id = $1
        RETURNING 1
      ) SELECT count(*)::int AS erased FROM e`,
  columns: ['erased'],
  sample: (organizationId) => [organizationId, 'none@example.invalid'],
});

/** Retention: up to $2 imports that ended more than $1 days ago, deleted with their rows. */
export const DELETE_EXPIRED_IMPORTS = defineStatement<{ deleted: number }>({
  name: 'imports.delete-expired',
  text: `WITH d AS (
        DELETE FROM imports WHERE id IN (
          SELECT id FROM imports WHERE finished_at < now() - make_interval(secs => $1::float8 * 86400)
          ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING 1
      ) SELECT count(*)::int AS deleted FROM d`,
  columns: ['deleted'],
  sample: () => [1, 0],
});

export const IMPORTS_STATEMENTS = [
  NO_STATEMENT_TIMEOUT,
  INSERT_IMPORT,
  SEAL_IMPORT,
  CLAIM_IMPORT,
  RENEW_LEASE,
  NEXT_ROWS,
  WRITE_RESULTS,
  ADVANCE_IMPORT,
  FAIL_IMPORT,
  RELEASE_LEASES,
  CANCEL_IMPORT,
  GET_IMPORT,
  LIST_IMPORTS,
  RESULT_LINES,
  ERASE_IMPORT_ROWS,
  DELETE_EXPIRED_IMPORTS,
];
