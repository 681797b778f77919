import { readdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/database/project-root';

/**
 * CI runs each Node's pass as two Jest runs (.ci/run): JEST_SELECTION=rest with two workers, then
 * JEST_SELECTION=timing in band (test/timing-sensitive.js). Together they must be the whole suite,
 * each test file exactly once: a file in neither would never run in CI, one in both would run twice.
 */
interface Selection {
  testRegex: string | string[];
  testPathIgnorePatterns?: string[];
}

function configWith(selection: string | undefined): Selection {
  const file = path.join(PROJECT_ROOT, 'jest.config.js');
  const before = process.env.JEST_SELECTION;
  if (selection === undefined) delete process.env.JEST_SELECTION;
  else process.env.JEST_SELECTION = selection;
  try {
    let config: Selection | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the configuration Jest itself reads, evaluated afresh
      config = require(file) as Selection;
    });
    return config!;
  } finally {
    if (before === undefined) delete process.env.JEST_SELECTION;
    else process.env.JEST_SELECTION = before;
  }
}

function selected(config: Selection, files: string[]): string[] {
  const regexes = [config.testRegex].flat().map((source) => new RegExp(source));
  const ignored = (config.testPathIgnorePatterns ?? []).map((source) => new RegExp(source.replace('<rootDir>', PROJECT_ROOT)));
  return files.filter((file) => regexes.some((r) => r.test(file)) && !ignored.some((r) => r.test(file)));
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'generated' ? [] : filesUnder(full);
    return [full];
  });
}

describe('CI test selections (JEST_SELECTION)', () => {
  const files = ['src', 'test'].flatMap((root) => filesUnder(path.join(PROJECT_ROOT, root)));
  const suite = selected(configWith(undefined), files);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS list, read by jest.config.js too
  const timingList = require(path.join(PROJECT_ROOT, 'test', 'timing-sensitive.js')) as Record<string, string>;

  it('every entry of test/timing-sensitive.js is a test file of the suite, with its reason', () => {
    for (const [file, reason] of Object.entries(timingList)) {
      expect({ file, inSuite: suite.includes(path.join(PROJECT_ROOT, file)) }).toEqual({ file, inSuite: true });
      expect(reason.length).toBeGreaterThan(10);
    }
  });

  it('timing and rest together are the whole suite, each file once', () => {
    const timing = selected(configWith('timing'), files);
    const rest = selected(configWith('rest'), files);
    expect(suite.length).toBeGreaterThan(100);
    expect(timing.map((file) => path.relative(PROJECT_ROOT, file)).sort()).toEqual(Object.keys(timingList).sort());
    expect(rest.filter((file) => timing.includes(file))).toEqual([]);
    expect([...timing, ...rest].sort()).toEqual([...suite].sort());
  });
});
