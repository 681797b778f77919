import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/database/project-root';

/**
 * docs/extending.md quotes the example module; every block marked `<!-- quote: <file> -->` must
 * still appear word for word in that file, so the guide fails `npm test` instead of rotting.
 */
const GUIDE = readFileSync(path.join(PROJECT_ROOT, 'docs', 'extending.md'), 'utf8');
const QUOTE = /<!-- quote: (\S+) -->\n```ts\n([\s\S]*?)\n```/g;

export function staleQuotes(guide: string, read: (file: string) => string): string[] {
  return [...guide.matchAll(QUOTE)].filter(([, file, code]) => !read(file).includes(code)).map(([, file]) => file);
}

describe('docs/extending.md', () => {
  const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');

  it('quotes the example module as it is (every quoted block appears verbatim in its file)', () => {
    const quotes = [...GUIDE.matchAll(QUOTE)].map(([, file]) => file);
    expect(quotes.length).toBeGreaterThanOrEqual(8); // DTO, response model, controller, statements, repository, service, module, e2e test
    expect(staleQuotes(GUIDE, read)).toEqual([]);
  });

  it('would catch a quote that no longer matches its file', () => {
    const edited = GUIDE.replace('runIn(tx, FIND_LIST,', 'runIn(tx, FIND_LISTS,');
    expect(staleQuotes(edited, read)).toEqual(['test/example-module/list-copies.repository.ts']);
  });
});
