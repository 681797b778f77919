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
