import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../src/database/project-root';

/**
 * Comments state rules and reasons, not history (CONTRIBUTING.md): no optimisation "passes", no
 * working names of branches, no dates, no measured figures that age, and no pointer to
 * docs/performance.md standing in for a reason. History lives in git and CHANGELOG.md.
 */
const HISTORY: ReadonlyArray<readonly [what: string, pattern: RegExp]> = [
  ['a numbered pass', /\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(st|nd|rd|th)) pass\b/i],
  ['a working name', /\b(edge|probe|batch|deliver|tracing|single|outbox|feed)\d+\b|\bw-[a-z]+\d*\b/i],
  ['a date', /(?<!`)\b20\d\d-\d\d-\d\d\b/], // a date in backticks is an example of a format
  ['docs/performance.md as a reason', /performance\.md/],
  ['a measured figure', /\d\s?(µs|kB\b)|\d\s?% (faster|slower|less|more|cheaper|dearer)\b/],
  ['a migration\'s history', /\bmigration \d{14}/],
];

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' || entry.name === 'node_modules' ? [] : files(full, keep);
    return keep(entry.name) ? [full] : [];
  });
}

/**
 * Each comment of a TypeScript or JavaScript file with its line, read from TypeScript's parse: the
 * comments before and after every node. A bare scanner cannot tell where a template literal resumes
 * after `${...}`, so it would lose every comment after the first such template (the SQL builders').
 */
function tsComments(file: string): Array<{ line: number; text: string }> {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = new Map<number, { line: number; text: string }>();
  const add = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (!found.has(range.pos)) {
        const { line } = source.getLineAndCharacterOfPosition(range.pos);
        found.set(range.pos, { line: line + 1, text: text.slice(range.pos, range.end) });
      }
    }
  };
  const visit = (node: ts.Node): void => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(source);
  add(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  return [...found.values()].sort((x, y) => x.line - y.line);
}

/** The Prisma schema's comments (`//` and `///`). */
function prismaComments(file: string): Array<{ line: number; text: string }> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      const at = line.indexOf('//');
      return at < 0 ? [] : [{ line: i + 1, text: line.slice(at) }];
    });
}

export function historyIn(comments: Array<{ line: number; text: string }>, file: string): string[] {
  return comments.flatMap(({ line, text }) =>
    HISTORY.filter(([, pattern]) => pattern.test(text)).map(([what]) => `${file}:${line}: ${what}: ${text.trim().slice(0, 120)}`),
  );
}

describe('comments state rules and reasons, not history', () => {
  it('flags each kind of history in a comment, and not a rule', () => {
    const flagged = historyIn(
      [
        { line: 1, text: '// the eighth pass made this faster' },
        { line: 2, text: '// edge9: moved here' },
        { line: 3, text: '// measured on 2026-11-25' },
        { line: 4, text: '// see docs/performance.md' },
        { line: 5, text: '// saves 9 µs a delivery' },
        { line: 6, text: '// a body over the limit is refused before it is read' },
      ],
      'x.ts',
    );
    expect(flagged.map((entry) => entry.split(':')[1])).toEqual(['1', '2', '3', '4', '5']);
  });

  it('holds in src/, test/ and prisma/schema.prisma', () => {
    const code = (name: string) => /\.(ts|js|mjs)$/.test(name);
    const found = [
      ...files(path.join(PROJECT_ROOT, 'src'), code).flatMap((file) => historyIn(tsComments(file), path.relative(PROJECT_ROOT, file))),
      ...files(path.join(PROJECT_ROOT, 'test'), code)
        .filter((file) => !file.endsWith(path.join('architecture', 'comments.spec.ts')))
        .flatMap((file) => historyIn(tsComments(file), path.relative(PROJECT_ROOT, file))),
      ...historyIn(prismaComments(path.join(PROJECT_ROOT, 'prisma', 'schema.prisma')), 'prisma/schema.prisma'),
    ];
    expect(found).toEqual([]);
  });
});
