import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../src/database/project-root';

/**
 * The layers of src/, lowest first (README, "Architecture"). A file may import from its own layer
 * or a lower one, never from a higher one. Each top-level folder or file of src/ is in exactly one
 * layer: a new one fails here until it is placed.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['config', 'common', 'generated'],
  ['database', 'errors'],
  ['http-body', 'validation', 'docs', 'metrics', 'rate-limit', 'auth', 'logging', 'tracing'],
  ['contacts', 'custom-fields', 'lists', 'list-memberships', 'suppressions', 'erasure', 'requests', 'events', 'webhooks', 'imports', 'exports', 'health', 'demo'],
  ['admin', 'app.module', 'app.factory', 'main', 'startup-failure'],
];

const SRC = path.join(PROJECT_ROOT, 'src');

function layerOf(topLevel: string): number {
  const layer = LAYERS.findIndex((names) => names.includes(topLevel));
  if (layer === -1) throw new Error(`src/${topLevel} is in no layer: add it to LAYERS in ${path.relative(PROJECT_ROOT, __filename)} and to the README`);
  return layer;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Top-level entry of src/ that a path inside src/ belongs to (`contacts`, `main`, ...); imports name files without `.ts`. */
const topLevelOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0].replace(/\.ts$/, '');

/** Every relative import (and re-export, and `import type`) of a file, resolved to a path. */
function importsOf(file: string): { specifier: string; target: string }[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({ specifier, target: path.resolve(path.dirname(file), specifier) }));
}

type Arrow = { from: string; specifier: string; target: string };

/** The arrows that run from a lower layer up to a higher one, as `from imports specifier`. */
function upwardImports(arrows: Arrow[]): string[] {
  return arrows
    .filter(({ target }) => target.startsWith(SRC + path.sep))
    .filter(({ from, target }) => layerOf(topLevelOf(target)) > layerOf(topLevelOf(from)))
    .map(({ from, specifier }) => `${path.relative(SRC, from)} imports ${specifier}`);
}

/**
 * The import circles among `files`: each strongly connected component of the import graph with
 * more than one file (or a file that imports itself), as sorted paths relative to src/. Tarjan's
 * algorithm; an import resolves to `<target>.ts` or `<target>/index.ts` among `files`.
 */
function importCircles(files: readonly string[], arrows: readonly Arrow[]): string[][] {
  const known = new Set(files);
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const { from, target } of arrows) {
    const resolved = [`${target}.ts`, path.join(target, 'index.ts')].find((candidate) => known.has(candidate));
    if (resolved && known.has(from)) next.get(from)!.push(resolved);
  }
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file)!) {
      if (!order.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, order.get(target)!));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || next.get(file)!.includes(file)) circles.push(component.map((name) => path.relative(SRC, name)).sort());
  };
  for (const file of files) if (!order.has(file)) visit(file);
  return circles.sort((one, other) => one[0].localeCompare(other[0]));
}

const files = sourceFiles(SRC);
const arrows: Arrow[] = files.flatMap((file) => importsOf(file).map((arrow) => ({ from: file, ...arrow })));

describe('imports of src/ run one way', () => {
  it('reads the imports of every file (the check below has something to check)', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(arrows.length).toBeGreaterThan(200);
  });

  it('places every top-level folder and file of src/ in a layer', () => {
    const unplaced = readdirSync(SRC).map((name) => topLevelOf(path.join(SRC, name))).filter((name) => !LAYERS.some((names) => names.includes(name)));
    expect(unplaced).toEqual([]);
  });

  it('has no import from a lower layer to a higher one', () => {
    expect(upwardImports(arrows)).toEqual([]);
  });

  it('would report the imports this refactoring removed (common/ → auth/, docs/ → contacts/)', () => {
    const at = (file: string, specifier: string): Arrow => {
      const from = path.join(SRC, file);
      return { from, specifier, target: path.resolve(path.dirname(from), specifier) };
    };
    const removed = [at('common/logging.ts', '../auth/api-key'), at('docs/openapi.ts', '../contacts/dto/contact-responses.dto')];
    expect(upwardImports([...removed, at('contacts/contacts.module.ts', '../docs/openapi.decorators')])).toEqual([
      'common/logging.ts imports ../auth/api-key',
      'docs/openapi.ts imports ../contacts/dto/contact-responses.dto',
    ]);
  });
});

describe('imports of src/ form no circle', () => {
  it('has no import circle among the files of src/', () => {
    expect(importCircles(files, arrows)).toEqual([]);
  });

  it('would report the circles this refactoring removed (database ↔ statements, events ↔ lists)', () => {
    const at = (file: string, specifier: string): Arrow => {
      const from = path.join(SRC, file);
      return { from, specifier, target: path.resolve(path.dirname(from), specifier) };
    };
    const removed = [
      at('database/statements.ts', './database'),
      at('events/event-types.ts', '../lists/lists.repository'),
    ];
    expect(importCircles(files, [...arrows, ...removed])).toEqual([
      ['database/database.ts', 'database/statements.ts'],
      ['events/event-types.ts', 'events/event-writes.ts', 'events/events.repository.ts', 'lists/lists.repository.ts'],
    ]);
  });

  it('finds a circle through a folder index and a file that imports itself', () => {
    const fixture = ['a.ts', 'b/index.ts', 'c.ts', 'd.ts'].map((name) => path.join(SRC, 'fixture', name));
    const [a, bIndex, c, d] = fixture;
    const arrow = (from: string, specifier: string): Arrow => ({ from, specifier, target: path.resolve(path.dirname(from), specifier) });
    const circles = importCircles(fixture, [arrow(a, './b'), arrow(bIndex, '../a'), arrow(c, './c'), arrow(d, './a')]);
    expect(circles).toEqual([['fixture/a.ts', 'fixture/b/index.ts'], ['fixture/c.ts']]);
  });
});
