import type { PoolClient } from 'pg';
import type { AnyStatement } from '../../src/database/statements';

/**
 * What is wrong with a registered statement against the migrated schema, as messages (none: it is
 * sound). PREPARE parses and plans the text, so a column, table, function or type that does not
 * exist fails here; then the sample runs for `organizationId` (in a transaction that is rolled
 * back) and the columns PostgreSQL returns are compared, in order, with the declared `columns`.
 */
export async function statementProblems(client: PoolClient, statement: AnyStatement, organizationId: string): Promise<string[]> {
  const problems: string[] = [];
  await client.query('BEGIN');
  try {
    await client.query('SAVEPOINT prepared');
    try {
      await client.query(`PREPARE schema_check AS ${statement.text}`);
      await client.query('DEALLOCATE schema_check');
    } catch (error) {
      await client.query('ROLLBACK TO SAVEPOINT prepared');
      return [`${statement.name} does not prepare: ${(error as Error).message}`];
    }
    try {
      // Unnamed: a statement under test may reuse a name with another text.
      const result = await client.query({ text: statement.text, values: statement.sample(organizationId) });
      const returned = result.fields.map((field) => field.name);
      if (JSON.stringify(returned) !== JSON.stringify(statement.columns)) {
        problems.push(`${statement.name} returns columns ${JSON.stringify(returned)}, declares ${JSON.stringify(statement.columns)}`);
      }
    } catch (error) {
      problems.push(`${statement.name} fails with its sample values: ${(error as Error).message}`);
    }
  } finally {
    await client.query('ROLLBACK');
  }
  return problems;
}

function isStatement(value: unknown): value is AnyStatement {
  if (typeof value !== 'object' || value === null) return false;
  const { name, text, columns, sample } = value as Partial<AnyStatement>;
  return typeof name === 'string' && typeof text === 'string' && Array.isArray(columns) && typeof sample === 'function';
}

/**
 * Every statement a module exports (its `*.statements.ts` file's exports), also inside exported
 * arrays and records: a statement assembled from parts (a listing variant) is found like any other.
 */
export function statementsIn(exported: Record<string, unknown>): AnyStatement[] {
  const found = new Map<string, AnyStatement>();
  const visit = (value: unknown): void => {
    if (isStatement(value)) found.set(`${value.name}\n${value.text}`, value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
  };
  Object.values(exported).forEach(visit);
  return [...found.values()];
}

/** The exported statements that the registry does not hold with the same text (so the check above never sees them). */
export function unregistered(exported: readonly AnyStatement[], registered: readonly AnyStatement[]): string[] {
  const texts = new Map(registered.map((statement) => [statement.name, statement.text]));
  return exported.filter((statement) => texts.get(statement.name) !== statement.text).map((statement) => statement.name);
}
