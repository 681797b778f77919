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

/**
 * No module holds another module's SQL text: a file of src/ takes from another top-level
 * folder's statements file only its exported part functions (named `…Part`: `eventsInsertPart`,
 * `storeAnswerPart`, `contactJsonPart`) and types, never a statement or a text (docs/extending.md,
 * "Data access"). Shared SQL helpers live in src/database. Each foreign name taken otherwise, as
 * `file:line name from specifier` (`*` for a namespace or default import).
 */
export function foreignSqlImports(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const topLevel = (file: string) => path.posix.normalize(file).split('/')[1];
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.') || !specifier.text.endsWith('.statements')) continue;
    const target = path.posix.join(path.posix.dirname(fileName), specifier.text);
    if (topLevel(target) === topLevel(fileName)) continue;
    const line = source.getLineAndCharacterOfPosition(statement.getStart()).line + 1;
    const flag = (name: string) => found.push(`${fileName}:${line} ${name} from ${specifier.text}`);
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (!clause || clause.isTypeOnly) continue;
      if (clause.name) flag('*');
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) flag('*');
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          const name = (element.propertyName ?? element.name).text;
          if (!element.isTypeOnly && !name.endsWith('Part')) flag(name);
        }
      }
    } else if (!statement.isTypeOnly) {
      const clause = statement.exportClause;
      if (!clause || !ts.isNamedExports(clause)) flag('*');
      else for (const element of clause.elements) if (!element.isTypeOnly && !(element.propertyName ?? element.name).text.endsWith('Part')) flag((element.propertyName ?? element.name).text);
    }
  }
  return found;
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

  it("no file of src/ takes another module's SQL text or constants from its statements file, only its exported part functions", () => {
    expect(files.filter((file) => file.endsWith('.statements.ts')).length).toBeGreaterThan(10);
    const relative = (file: string) => path.relative(PROJECT_ROOT, file).split(path.sep).join('/');
    expect(files.flatMap((file) => foreignSqlImports(relative(file), readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('finds the statements, texts and namespaces taken from another module, not its parts, types or its own module', () => {
    const fixture = [
      "import { defineStatement } from '../../database/statements';",
      "import { eventsInsertPart, INSERT_EVENTS } from '../../events/events.statements';",
      "import { storeAnswerPart as answerPart, type StoredRow } from '../../requests/stored-responses.statements';",
      "import type { ListRow } from '../../lists/lists.statements';",
      "import * as lists from '../../lists/lists.statements';",
      "import { STANDARD_FIELD_COLUMNS, contactJsonPart } from '../contacts.statements';",
      "export { FEED_PAGE } from '../../events/events.statements';",
    ].join('\n');
    expect(foreignSqlImports('src/contacts/listing/listing.statements.ts', fixture)).toEqual([
      'src/contacts/listing/listing.statements.ts:2 INSERT_EVENTS from ../../events/events.statements',
      'src/contacts/listing/listing.statements.ts:5 * from ../../lists/lists.statements',
      'src/contacts/listing/listing.statements.ts:7 FEED_PAGE from ../../events/events.statements',
    ]);
    expect(foreignSqlImports('src/exports/exports.statements.ts', "import { CONTACT_ROWS as rows } from '../contacts/contacts.statements';")).toEqual([
      'src/exports/exports.statements.ts:1 CONTACT_ROWS from ../contacts/contacts.statements',
    ]);
  });
});
