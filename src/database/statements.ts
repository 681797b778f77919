import { Injectable } from '@nestjs/common';
import type { QueryResultRow } from 'pg';
import type { Prisma } from '../generated/prisma/client';

/**
 * A statement of the request path. With a `name` it is a prepared statement: parsed (and, once
 * PostgreSQL settles on a generic plan, planned) once per connection instead of on every call.
 * A name must always go with the same text.
 */
export interface Statement {
  name?: string;
  text: string;
  values?: unknown[];
}

/** What a repository needs to run SQL: the pool or the client of an open transaction. */
export interface SqlClient {
  query<R extends QueryResultRow = QueryResultRow>(statement: string | Statement, values?: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * A hot statement of the request path: raw SQL on the `Database` pool, sent as a prepared
 * statement (parsed once per connection). Only statements whose cost a bench shows are hot live
 * here; everything else goes through Prisma Client in its module's repository (docs/extending.md).
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
   * Parameter values that run the statement without effect for `organizationId` (no row matches,
   * or nothing is written), used by warm-up (inside a rolled-back transaction) and by the schema test.
   */
  readonly sample: (organizationId: string) => unknown[];
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

/**
 * Runs a registered statement inside a Prisma interactive transaction (same pool, same fault
 * handling as Prisma Client), for a path that is otherwise Prisma Client but must share a
 * statement with the `Database` paths (LOCK_EMAILS) or needs one SQL can only write as a CTE
 * (ERASE_ADDRESS). The one place where `$queryRawUnsafe` runs: only a registered text, whose
 * columns test/database/statements.e2e-spec.ts checks, with its values as parameters.
 */
export function runInPrisma<Row extends QueryResultRow>(tx: Prisma.TransactionClient, statement: RegisteredStatement<Row>, values: unknown[]): Promise<Row[]> {
  return tx.$queryRawUnsafe<Row[]>(statement.text, ...values);
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
