import { Injectable } from '@nestjs/common';
import type { QueryResultRow } from 'pg';

/**
 * Sets plan_cache_mode back to the pool's (database.ts) for the rest of a transaction whose earlier
 * statement set generic plans for the foreign-key checks it triggers, one per row (the contacts
 * write statement). A utility statement: sent as is (simple protocol), never prepared.
 */
export const RESET_PLAN_CACHE_MODE = 'RESET plan_cache_mode';

/**
 * A statement of the request path. With a `name` it is a prepared statement: parsed (and, once
 * PostgreSQL settles on a generic plan, planned) once per connection instead of on every call.
 * A name must always go with the same text.
 */
export interface Statement {
  name?: string;
  text: string;
  values?: unknown[];
  /** 'array': each row as the array of its column values (pg's QueryConfig), no object per row. */
  rowMode?: 'array';
}

/** What a repository needs to run SQL: the pool or the client of an open transaction. */
export interface SqlClient {
  query<R extends QueryResultRow = QueryResultRow>(statement: string | Statement, values?: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * SQL of the service: a statement run on the `Database` pool, sent as a prepared statement (parsed
 * once per connection). Every SQL text lives here, and everything that must be atomic (more than one
 * statement) is such statements inside `Database.transaction`; a single read or write of a model
 * goes through Prisma Client in autocommit (docs/extending.md, "Data access").
 *
 * Each module declares its statements in one file (`<module>.statements.ts`) and registers them in
 * the `StatementRegistry` from its module class. Warm-up prepares every registered statement on
 * every pool connection before the server listens, and test/database/statements.e2e-spec.ts
 * PREPAREs each against the migrated schema and checks its result columns: a renamed column fails
 * `npm test`, not a request.
 */
export interface RegisteredStatement<Row extends QueryResultRow = QueryResultRow> {
  /** Unique, `<module>.<what>`: the prepared statement's name on every connection. */
  readonly name: string;
  readonly text: string;
  /** The result columns, in order (the keys of `Row`): checked against what PostgreSQL returns. */
  readonly columns: ReadonlyArray<keyof Row & string>;
  /**
   * Parameter values that run the statement for `organizationId` (an organization made for the
   * run), used by warm-up and by the schema test, both inside a transaction that is rolled back:
   * what a sample writes is never kept.
   */
  readonly sample: (organizationId: string) => unknown[];
  /**
   * 'generic': `Database.run` runs it with its generic plan, planned once per connection instead of
   * at every call (the pool plans every other statement with its values), in a transaction of its
   * own that sets plan_cache_mode for itself: two more round trips. Only for a statement whose
   * plan does not depend on its values: each table reached by key from small arrays, no
   * selectivity for a value to change.
   */
  readonly plan?: 'generic';
}

/** A registered statement whatever its row type (what the registry, warm-up and tests need). */
export type AnyStatement = Omit<RegisteredStatement, 'columns'> & { readonly columns: readonly string[] };

/** Declares a statement; `Row` is its result type, whose keys must be listed in `columns`. */
export function defineStatement<Row extends QueryResultRow>(statement: RegisteredStatement<Row>): RegisteredStatement<Row> {
  return statement;
}

/** The statement with this call's values, for `Database.query` or a transaction's `tx.query`. */
export function bind<Row extends QueryResultRow>(statement: RegisteredStatement<Row>, values: unknown[]): Statement {
  return { name: statement.name, text: statement.text, values };
}

/** Runs a registered statement in an open transaction (`Database.run` runs one on the pool). */
export async function runIn<Row extends QueryResultRow>(tx: SqlClient, statement: RegisteredStatement<Row>, values: unknown[]): Promise<Row[]> {
  return (await tx.query<Row>(bind(statement, values))).rows;
}

/** Every registered statement of the app: filled by the feature modules, read by warm-up and tests. */
@Injectable()
export class StatementRegistry {
  private readonly statements = new Map<string, AnyStatement>();

  register(statements: readonly AnyStatement[]): void {
    for (const statement of statements) {
      const known = this.statements.get(statement.name);
      // A prepared statement's name must always go with the same text, on every connection.
      if (known && known.text !== statement.text) throw new Error(`Two statements are named ${statement.name}`);
      this.statements.set(statement.name, statement);
    }
  }

  all(): AnyStatement[] {
    return [...this.statements.values()];
  }
}
