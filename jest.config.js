/** One Jest run for unit tests (src/**\/*.spec.ts) and e2e tests (test/**\/*.e2e-spec.ts). */
const timingSensitive = Object.keys(require('./test/timing-sensitive'));

const testRegex = '.*\\.(spec|e2e-spec)\\.ts$';
/** A regular expression matching the one file (Jest matches test paths as absolute paths). */
const exactly = (file) => `^${require('path').join(__dirname, file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
// JEST_SELECTION: `timing` runs the files of test/timing-sensitive.js, `rest` every other file (.ci/run's
// Node 20 part runs beside lint, so it leaves the timing files out); unset, the whole suite.
const selection = process.env.JEST_SELECTION || undefined;
if (selection !== undefined && selection !== 'timing' && selection !== 'rest') {
  throw new Error(`JEST_SELECTION=${selection}: expected timing or rest (or unset for the whole suite)`);
}
// A renamed or removed file left in the list would make `timing` quietly run less than it says.
const missing = timingSensitive.filter((file) => !require('fs').existsSync(require('path').join(__dirname, file)));
if (missing.length > 0) throw new Error(`test/timing-sensitive.js names files that do not exist: ${missing.join(', ')}`);

module.exports = {
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex,
  ...(selection === 'timing' ? { testPathIgnorePatterns: ['/node_modules/'], testRegex: timingSensitive.map(exactly) } : {}),
  ...(selection === 'rest' ? { testPathIgnorePatterns: ['/node_modules/', ...timingSensitive.map(exactly)] } : {}),
  // Four workers for the files that time nothing (many of them wait on spawned services and the
  // database, so more workers than cores overlap those waits); then the timing-sensitive ones in band, alone
  // (test/utils/timing-last-runner.js), so that they measure the service, not another test file.
  // `--maxWorkers=1` on the command line runs everything in band.
  // Jest may print "A worker process has failed to exit gracefully" after the parallel phase: no handle
  // is left open (each worker's exit event fires at once); jest-worker's fixed 500 ms grace passes
  // while the workers, all at once, unmap heaps of several hundred MB of garbage.
  maxWorkers: 4,
  runner: '<rootDir>/test/utils/timing-last-runner.js',
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  testEnvironment: 'node',
  // One PostgreSQL server (embedded unless DATABASE_URL is set), one migrated template database.
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30000,
  // CPU_REPORT=<file>: CPU seconds per test file (test/utils/cpu-reporter.js), as .ci/run prints them.
  ...(process.env.CPU_REPORT ? { reporters: ['default', '<rootDir>/test/utils/cpu-reporter.js'] } : {}),
};
