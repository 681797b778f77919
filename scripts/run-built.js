#!/usr/bin/env node
// `node scripts/run-built.js <file under dist/> [args...]`: runs a compiled entry point (the admin
// command line, Studio) as `npm start` runs the service, without compiling TypeScript at every call.
// When dist/ is missing or older than src/, it is built once first (`npm run build`, whose output
// goes to stderr: stdout belongs to the command and carries its JSON).
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { distIsCurrent } = require('./dist-state');

const root = path.resolve(__dirname, '..');
const [entry, ...args] = process.argv.slice(2);
if (entry === undefined) {
  process.stderr.write('usage: node scripts/run-built.js <file under dist/> [args...]\n');
  process.exit(2);
}
const target = path.join(root, 'dist', entry);

if (!distIsCurrent(root, target)) {
  process.stderr.write('Building dist/ (missing or older than src/)...\n');
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
  if (build.status !== 0) {
    process.stderr.write(`npm run build failed (exit ${build.status ?? build.signal}): the command was not run\n`);
    process.exit(1);
  }
}

// Node 22.1 and later keep V8's compiled code on disk between calls (Node 20 has no such cache).
require('node:module').enableCompileCache?.();
// The entry point reads its arguments from process.argv, as when started with `node dist/<entry>`.
process.argv = [process.argv[0], target, ...args];
require(target);
