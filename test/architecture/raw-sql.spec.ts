import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../src/database/project-root';

/**
 * Where raw SQL may run through Prisma Client (docs/extending.md, "Raw SQL"): `$queryRaw` /
 * `$executeRaw` tagged templates only in a module's repository, for what Prisma Client's API cannot
 * express, each use named here with its reason; the `...Unsafe` variants only in `runInPrisma`
 * (src/database/statements.ts), which runs a registered statement (checked against the schema by
 * test/database/statements.e2e-spec.ts). Hot statements on the `Database` pool are not Prisma
 * calls and are not listed: they are registered (`<module>.statements.ts`).
 *
 * A new use fails here until it is added with its reason; a use that went away fails until its
 * entry goes too, so the list stays the true one.
 */
const ALLOWED: ReadonlyArray<readonly [place: string, uses: number, reason: string]> = [
  ['database/statements.ts runInPrisma', 1, 'registered statements (LOCK_EMAILS, ERASE_ADDRESS, EVENTS_OF_ADDRESS_FOR_UPDATE, WRITE_REDACTED_EVENTS) inside Prisma transactions: registered text only'],
  ['custom-fields/custom-fields.repository.ts CustomFieldsRepository.update', 1, 'row lock (FOR UPDATE) so concurrent PATCHes cannot drop options'],
  ['lists/lists.repository.ts ListsRepository.update', 1, 'row lock (FOR NO KEY UPDATE)'],
  ['list-memberships/list-memberships.repository.ts ListMembershipsRepository.removeFromList', 1, "updated_at = now(): the transaction's time, not this process's clock"],
  ['suppressions/suppressions.repository.ts SuppressionsRepository.page', 1, 'keyset page in COLLATE "C" order (the index\'s)'],
  ['requests/stored-responses.repository.ts StoredResponsesRepository.find', 1, 'age on the database clock; the json body read as its text'],
  ['requests/stored-responses.repository.ts StoredResponsesRepository.findByClientRequestId', 1, 'age on the database clock; the json body read as its text'],
  ['requests/stored-responses.repository.ts StoredResponsesRepository.deleteExpired', 1, 'age on the database clock'],
  ['demo/demo-seed.ts seedDemoData', 1, 'advisory lock serialising two first starts (the demo has no repository)'],
  ['events/events.repository.ts EventsRepository.deleteExpired', 1, 'one statement: CTEs with FOR UPDATE SKIP LOCKED, database clock'],
  ['contacts/listing/contact-listing.repository.ts ContactListingRepository.driver', 1, 'bounded counts (LIMIT inside count) in one statement'],
  ['webhooks/webhooks.repository.ts WebhooksRepository.lockOrganization', 1, 'row lock (FOR UPDATE) on the organization'],
  ['webhooks/webhooks.repository.ts WebhooksRepository.feedEnd', 1, 'a PostgreSQL function (event_horizon)'],
  ['webhooks/webhooks.repository.ts WebhooksRepository.deliveries', 1, 'row-value keyset comparison ((position, seq) < ...)'],
  ['webhooks/webhooks.repository.ts WebhooksRepository.recordWebhookHealth', 3, 'times on the database clock; RETURNING of the rows changed'],
  ['webhooks/webhooks.repository.ts WebhooksRepository.oldestPendingAgeSeconds', 1, 'age on the database clock'],
];

/** Files that are no repository yet hold an allowed use (each also in ALLOWED with its reason). */
const OUTSIDE_REPOSITORIES = ['database/statements.ts', 'demo/demo-seed.ts'];

const RAW = new Set(['$queryRaw', '$executeRaw', '$queryRawUnsafe', '$executeRawUnsafe']);
const SRC = path.join(PROJECT_ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}

/** `Class.method`, `function` or a top-level `variable`: the named declaration around a node. */
function placeOf(node: ts.Node): string {
  const names: string[] = [];
  for (let at: ts.Node | undefined = node; at; at = at.parent) {
    if (ts.isMethodDeclaration(at) || ts.isFunctionDeclaration(at) || ts.isClassDeclaration(at)) {
      if (at.name) names.unshift(at.name.getText());
    } else if (ts.isVariableDeclaration(at) && ts.isSourceFile(at.parent.parent.parent)) names.unshift(at.name.getText());
  }
  return names.join('.') || '(top level)';
}

/** Every raw call of a source text, as `{ place, method }` (comments and strings do not count). */
export function rawUses(fileName: string, text: string): { place: string; method: string }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const uses: { place: string; method: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && RAW.has(node.name.text)) uses.push({ place: `${fileName} ${placeOf(node)}`, method: node.name.text });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

const uses = sourceFiles(SRC).flatMap((file) => rawUses(path.relative(SRC, file).split(path.sep).join('/'), readFileSync(file, 'utf8')));

function counted(places: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const place of places) counts[place] = (counts[place] ?? 0) + 1;
  return counts;
}

describe('raw SQL through Prisma Client stays where docs/extending.md allows it', () => {
  it('finds raw calls in tagged templates and calls, not in comments or strings', () => {
    const sample = [
      'class ARepository {',
      '  a(tx) { return tx.$queryRaw`SELECT 1`; }',
      '  b(tx) { /* tx.$executeRaw`x` */ const s = "tx.$executeRaw"; return tx.$executeRawUnsafe(s); }',
      '}',
      'export const c = (tx) => tx.$queryRawUnsafe("SELECT 1");',
    ].join('\n');
    expect(rawUses('x/a.repository.ts', sample)).toEqual([
      { place: 'x/a.repository.ts ARepository.a', method: '$queryRaw' },
      { place: 'x/a.repository.ts ARepository.b', method: '$executeRawUnsafe' },
      { place: 'x/a.repository.ts c', method: '$queryRawUnsafe' },
    ]);
    expect(uses.length).toBeGreaterThan(10); // the scan of src/ reads the real files
  });

  it('has exactly the allowed uses, each with its reason', () => {
    for (const [, , reason] of ALLOWED) expect(reason.length).toBeGreaterThan(10);
    expect(counted(uses.map((use) => use.place))).toEqual(Object.fromEntries(ALLOWED.map(([place, count]) => [place, count])));
  });

  it('keeps them in repositories (and the few named files)', () => {
    const outside = uses.map((use) => use.place.split(' ')[0]).filter((file) => !file.endsWith('.repository.ts') && !OUTSIDE_REPOSITORIES.includes(file));
    expect(outside).toEqual([]);
  });

  it('runs the Unsafe variants (SQL text, not a template) only in runInPrisma, on registered statements', () => {
    const unsafe = uses.filter((use) => use.method.endsWith('Unsafe')).map((use) => use.place);
    expect(unsafe).toEqual(['database/statements.ts runInPrisma']);
  });
});
