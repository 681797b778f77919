/**
 * `npm run --silent admin -- <command>` (docs/api.md#running-and-administration). stdout carries exactly one JSON
 * object, so scripts can parse it; everything else (progress, warnings, errors) goes to stderr.
 * Errors are one line, `<command>: <what is wrong>`.
 * Exit codes: 0 done, 2 bad argument, 1 anything else (configuration, database).
 */
import { runAdminCommandLine } from './admin-command-line';

// Whatever a library logs must not corrupt the JSON on stdout.
console.log = console.info = console.debug = console.error;

void runAdminCommandLine(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  terminal: process.stderr.isTTY,
}).then((code) => {
  process.exitCode = code;
});
