/** One Jest run for unit tests (src/**\/*.spec.ts) and e2e tests (test/**\/*.e2e-spec.ts). */
module.exports = {
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  testEnvironment: 'node',
  // One PostgreSQL server (embedded unless DATABASE_URL is set), one migrated template database.
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30000,
  // A handle left open by a suite (e.g. a pool connection never released: Database.onModuleDestroy) must not keep
  // `npm test` (and CI) waiting after the run: global teardown still runs, then Jest exits.
  forceExit: true,
  // CPU_REPORT=<file>: CPU seconds per test file (test/utils/cpu-reporter.js), as .ci/run prints them.
  ...(process.env.CPU_REPORT ? { reporters: ['default', '<rootDir>/test/utils/cpu-reporter.js'] } : {}),
};
