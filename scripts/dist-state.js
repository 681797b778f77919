// Whether dist/ holds a build of the current sources: shared by scripts/run-built.js (the admin
// command line and Studio) and the tests that spawn the built service (test/utils/built.ts).
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');

/** The files besides src/ that a build depends on. */
const BUILD_INPUTS = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];

/**
 * True when `built` (a file under dist/) exists and is newer than every file of src/ and of the
 * build's configuration. `tsc` rewrites every output on each build, so one file's time stands for
 * the whole of dist/. Without src/ (the Docker image holds dist/ only) dist/ is what there is.
 */
function distIsCurrent(root, built) {
  if (!existsSync(built)) return false;
  const sources = path.join(root, 'src');
  if (!existsSync(sources)) return true;
  const builtAt = statSync(built).mtimeMs;
  const newest = (folder) =>
    readdirSync(folder, { withFileTypes: true }).reduce((latest, entry) => {
      const full = path.join(folder, entry.name);
      return Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
    }, statSync(folder).mtimeMs);
  const inputs = BUILD_INPUTS.map((file) => path.join(root, file)).filter((file) => existsSync(file));
  return Math.max(newest(sources), ...inputs.map((file) => statSync(file).mtimeMs)) < builtAt;
}

module.exports = { distIsCurrent };
