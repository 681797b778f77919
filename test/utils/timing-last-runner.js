/**
 * Jest's own test runner, in two phases when Jest runs files in parallel: first every file that is
 * not timing-sensitive, on the workers (jest.config.js: four); then the files of
 * test/timing-sensitive.js in band, one at a time with nothing else running, so that what they time is
 * the service and not a neighbouring test file. When Jest runs in band anyway (one file, or
 * `--maxWorkers=1`), this is Jest's runner unchanged.
 */
const path = require('path');
const TestRunner = require('jest-runner').default;

const root = path.join(__dirname, '..', '..');
const timingSensitive = new Set(Object.keys(require('../timing-sensitive')).map((file) => path.join(root, file)));

class TimingLastRunner extends TestRunner {
  async runTests(tests, watcher, options) {
    if (options.serial) return super.runTests(tests, watcher, options);
    const timing = tests.filter((test) => timingSensitive.has(test.path));
    const rest = tests.filter((test) => !timingSensitive.has(test.path));
    if (rest.length > 0) await super.runTests(rest, watcher, options);
    if (timing.length > 0) await super.runTests(timing, watcher, { ...options, serial: true });
  }
}

module.exports = TimingLastRunner;
