import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../src/database/project-root';

/**
 * The two ways to PostgreSQL (docs/extending.md, "Data access"): Prisma Client for single reads and
 * writes of models, each in autocommit; registered statements (`defineStatement` in a module's
 * `<module>.statements.ts`, checked against the schema by test/database/statements.e2e-spec.ts) run
 * with `Database.run`, or `runIn` inside `Database.transaction`, the one transaction helper. So no
 * code in src/ (src/generated aside) opens a Prisma transaction or sends SQL text through Prisma
 * Client: no `$transaction`, `$queryRaw`, `$executeRaw`, `$queryRawUnsafe`, `$executeRawUnsafe`.
 */
const FORBIDDEN = new Set(['$transaction', '$queryRaw', '$executeRaw', '$queryRawUnsafe', '$executeRawUnsafe']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}

/** Every use of a forbidden Prisma member in a source text, as `file:line member` (comments and strings do not count). */
export function prismaSqlUses(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const uses: string[] = [];
  const visit = (node: ts.Node): void => {
    const name =
      ts.isPropertyAccessExpression(node) ? node.name.text
      : ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) ? node.argumentExpression.text
      : undefined;
    if (name !== undefined && FORBIDDEN.has(name)) uses.push(`${fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${name}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

describe('data access: Prisma Client in autocommit and registered SQL, nothing else', () => {
  const files = sourceFiles(path.join(PROJECT_ROOT, 'src'));

  it('no file of src/ opens a Prisma transaction or sends SQL through Prisma Client', () => {
    expect(files.length).toBeGreaterThan(50); // the scan reads the real files
    expect(files.flatMap((file) => prismaSqlUses(path.relative(PROJECT_ROOT, file).split(path.sep).join('/'), readFileSync(file, 'utf8')))).toEqual([]);
  });

  // The finder itself, on a fixture: what it must flag, and what it must leave alone.
  it('finds each forbidden member in calls and tagged templates, not in comments or strings', () => {
    const fixture = [
      'class ARepository {',
      '  a(tx) { return tx.$queryRaw`SELECT 1`; }',
      '  b(tx) { /* tx.$executeRaw`x` */ const s = "tx.$executeRaw"; return tx.$executeRawUnsafe(s); }',
      '  c() { return this.prisma.$transaction(async (tx) => tx.list.count()); }',
      "  d() { return this.prisma['$executeRaw']`DELETE FROM lists`; }",
      '}',
      'export const e = (tx) => tx.$queryRawUnsafe("SELECT 1");',
      'export const f = (database) => database.transaction((tx) => runIn(tx, STATEMENT, []));',
      'export const g = (prisma) => prisma.list.findMany({ where: { organizationId: "o" } });',
    ].join('\n');
    expect(prismaSqlUses('x/a.repository.ts', fixture)).toEqual([
      'x/a.repository.ts:2 $queryRaw',
      'x/a.repository.ts:3 $executeRawUnsafe',
      'x/a.repository.ts:4 $transaction',
      'x/a.repository.ts:5 $executeRaw',
      'x/a.repository.ts:7 $queryRawUnsafe',
    ]);
  });
});
